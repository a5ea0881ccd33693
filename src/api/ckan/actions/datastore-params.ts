import { DATASTORE_MAX_ROWS } from '../../../domain/resources/datastore.ts';
import type { DatastoreQuery } from '../../../domain/resources/datastore-sql.ts';
import { invalidParameters } from '../../../domain/errors.ts';
import { MAX_OFFSET, type ActionParams } from '../params.ts';
import { parseJsonText } from '../../../http/safe-json.ts';

/** datastore_search's parameters as CKAN's datastore_search_schema reads them. */

export const RECORDS_FORMATS = ['objects', 'lists', 'csv', 'tsv'] as const;
export type RecordsFormat = (typeof RECORDS_FORMATS)[number];

type Fail = (path: string, message: string) => undefined;

/** CKAN's json_validator: a dict as sent in a POST, or as JSON text in a GET. */
function dict(params: ActionParams, key: string, fail: Fail): Record<string, unknown> | undefined {
  let value = params.raw[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (Array.isArray(value) && value.length === 1) value = value[0];
  if (typeof value === 'string') {
    try {
      value = parseJsonText(value);
    } catch {
      return fail(key, 'Could not parse as valid JSON');
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(key, 'Must be a JSON object');
  return value as Record<string, unknown>;
}

/**
 * CKAN's unicode_or_json_validator: a dict (as sent, or as JSON text of one in a GET), else the text as
 * it is: `{2020} budget` is a search for those words, not malformed JSON.
 */
function textOrDict(params: ActionParams, key: string): string | Record<string, unknown> | undefined {
  const value = params.raw[key];
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  const text = params.string(key);
  if (text === undefined || text === '') return undefined;
  if (!text.trim().startsWith('{')) return text;
  try {
    const parsed = parseJsonText(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : text;
  } catch {
    return text;
  }
}

/**
 * CKAN's list_of_strings_or_string and get_list: a list as sent, or a comma-separated text; `strip`
 * takes the surrounding spaces and quotes off field names (sort clauses keep theirs).
 */
function list(params: ActionParams, key: string, strip: boolean): string[] | undefined {
  const items = params.list(key, { jsonText: true });
  if (!items) return undefined;
  const value = params.raw[key];
  const split = typeof value === 'string' && !value.trim().startsWith('[') ? items.flatMap((i) => i.split(',')) : items;
  const cleaned = split.map((s) => (strip ? s.trim().replace(/^"(.*)"$/, '$1') : s.trim())).filter(Boolean);
  return cleaned;
}

/**
 * `_links.next`'s cursor, `<offset>:<last _id>`: the page after that row, when the call asks for the offset
 * the cursor was made for. A client that changes the link's offset (to jump elsewhere) gets that offset,
 * as CKAN's `next`, which has only the offset, would give it.
 */
function readCursor(text: string | undefined, offset: number, fail: Fail): number | undefined {
  if (text === undefined || text === '') return undefined;
  const m = /^(\d{1,15}):(\d{1,15})$/.exec(text.trim());
  if (!m) return fail('cursor', 'Must be the cursor of a _links.next link');
  return Number(m[1]) === offset ? Number(m[2]) : undefined;
}

export function readDatastoreQuery(params: ActionParams) {
  const errors: Array<{ path: string; message: string }> = [];
  const fail: Fail = (path, message) => {
    errors.push({ path, message });
    return undefined;
  };
  const q = textOrDict(params, 'q');
  const filters = dict(params, 'filters', fail);
  const plain = params.bool('plain');
  const language = params.string('language');
  const limit = Math.min(params.int('limit', { min: 0 }) ?? 100, DATASTORE_MAX_ROWS);
  const offset = params.int('offset', { min: 0, max: MAX_OFFSET }) ?? 0;
  const cursor = readCursor(params.string('cursor'), offset, fail);
  const fieldList = list(params, 'fields', true);
  const sort = list(params, 'sort', false);
  const distinct = params.bool('distinct') ?? false;
  const includeTotal = params.bool('include_total') ?? true;
  const format = params.string('records_format') ?? 'objects';
  if (!(RECORDS_FORMATS as readonly string[]).includes(format))
    fail('records_format', `Value must be one of: ${RECORDS_FORMATS.join(', ')}`);
  // PostgreSQL's tsquery language (plain=false) has no equivalent here: refused rather than read as plain text.
  if (plain === false) fail('plain', 'Only plain text search (plain=true) is supported');
  params.check();
  if (errors.length) throw invalidParameters(errors);
  // A field named twice is listed once (the page's columns are keyed by name).
  const fields = fieldList && [...new Set(fieldList)];
  const query: DatastoreQuery = {
    q: typeof q === 'string' || (q && Object.keys(q).length) ? q : undefined,
    filters,
    sort,
    fields,
    distinct,
    limit,
    offset,
    after: cursor,
    includeTotal,
  };
  const echo = {
    ...(q !== undefined ? { q } : {}),
    ...(filters ? { filters } : {}),
    ...(sort ? { sort } : {}),
    ...(params.has('distinct') ? { distinct } : {}),
    ...(plain !== undefined ? { plain } : {}),
    ...(language ? { language } : {}),
  };
  return { query, format: format as RecordsFormat, echo };
}
