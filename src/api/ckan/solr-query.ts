import type { DatasetExclusions, DatasetListQuery, TimeBound } from '../../domain/datasets/list-query.ts';
import { unsupportedFilter } from '../../domain/errors.ts';

/**
 * The Solr query forms CKAN clients send in `q` and `fq`, parsed into the listing's filters:
 * `field:value`, `field:"quoted value"`, `field:(A OR B)`, `field:A OR field:B`, `-field:value` (also
 * `NOT`), `+field:value`, `AND` between clauses, `*:*`, and ranges `metadata_modified:[2024-05-01T10:00:00Z TO *]`
 * (`[` `]` inclusive, `{` `}` exclusive, `NOW±n UNIT` too). Words outside any field go to the hybrid search.
 * Everything else (another field, a wildcard, OR across fields, AND of two sets on a many-valued field)
 * is refused with a Search Query Error, never dropped: a harvester must not get more than it asked for.
 */

export interface ParsedSearch {
  /** Words for the hybrid search, or undefined for "everything". */
  text?: string;
  filters: Partial<DatasetListQuery>;
}

/** The longest q or fq taken, in characters: a search form, not a document. */
export const MAX_QUERY_CHARS = 8192;
/** The longest words sent to the hybrid search (as REST's q). */
export const MAX_TEXT_CHARS = 500;
/** The most values one filter (a field, included or excluded, over q and every fq) or date bounds may name. */
export const MAX_FILTER_TERMS = 1000;

type RecordField = 'theme' | 'access_level' | 'frequency' | 'language' | 'publisher';
type SetField = 'organization' | 'tags' | 'groups' | 'res_format' | 'license_id' | 'names' | 'ids' | RecordField;
type DateField = 'updated' | 'created';

/** Solr field → the listing's filter. */
const SET_FIELDS: Record<string, SetField> = {
  organization: 'organization',
  owner_org: 'organization',
  tags: 'tags',
  groups: 'groups',
  res_format: 'res_format',
  license_id: 'license_id',
  name: 'names',
  id: 'ids',
  // The metadata record's fields, by ckanext-dcat's scheming names (publisher: by name).
  theme: 'theme',
  access_level: 'access_level',
  frequency: 'frequency',
  language: 'language',
  publisher: 'publisher',
};
/** Record fields have no exclusion in the listing: `-theme:x` is refused rather than ignored. */
const NOT_NEGATABLE = new Set<SetField>(['theme', 'access_level', 'frequency', 'language', 'publisher']);
/** A dataset has one of each: two sets ANDed are their intersection. The others are many-valued. */
const SINGLE_VALUED = new Set<SetField>(['organization', 'license_id', 'names', 'ids', 'access_level', 'frequency', 'publisher']);
const DATE_FIELDS: Record<string, DateField> = { metadata_modified: 'updated', metadata_created: 'created' };
/** Fields whose every record has the one value named: a clause on them keeps all or nothing. */
const CONSTANT_FIELDS: Record<string, string> = { dataset_type: 'dataset', type: 'dataset', state: 'active' };

type Value = { kind: 'terms'; terms: string[] } | { kind: 'range'; from: string; to: string; fromIncl: boolean; toIncl: boolean };
type Item =
  { kind: 'field'; negated: boolean; field: string; value: Value } | { kind: 'text'; raw: string } | { kind: 'op'; op: 'AND' | 'OR' };

const refuse = (source: string, why: string) =>
  unsupportedFilter(`${why} (in ${JSON.stringify(source.length > 200 ? `${source.slice(0, 200)}…` : source)})`, [
    { path: 'q', message: why },
  ]);

/** Reads one value starting at `i` (after `field:`): quoted, parenthesised OR-list, range, or bare term. */
function readValue(s: string, i: number, source: string): [Value, number] {
  const c = s[i];
  if (c === '"') {
    const [text, end] = readQuoted(s, i, source);
    return [{ kind: 'terms', terms: [text] }, end];
  }
  if (c === '[' || c === '{') {
    const close = s.slice(i).search(/[\]}]/);
    if (close < 0) throw refuse(source, 'An unclosed range');
    const inner = s.slice(i + 1, i + close).trim();
    const m = /^(\S+)\s+TO\s+(\S+)$/.exec(inner);
    if (!m) throw refuse(source, 'A range must read [from TO to]');
    return [{ kind: 'range', from: m[1], to: m[2], fromIncl: c === '[', toIncl: s[i + close] === ']' }, i + close + 1];
  }
  if (c === '(') {
    const close = s.indexOf(')', i);
    if (close < 0) throw refuse(source, 'An unclosed parenthesis');
    const inner = s.slice(i + 1, close);
    const terms: string[] = [];
    let expectTerm = true;
    for (let j = 0; j < inner.length;) {
      if (/\s/.test(inner[j])) {
        j++;
        continue;
      }
      if (!expectTerm) {
        const op = /^(OR|\|\|)(?=\s|$)/.exec(inner.slice(j));
        if (!op) throw refuse(source, 'Only OR may join the values inside parentheses');
        j += op[0].length;
        expectTerm = true;
        continue;
      }
      const [term, end] = inner[j] === '"' ? readQuoted(inner, j, source) : readBare(inner, j, source);
      terms.push(term);
      j = end;
      expectTerm = false;
    }
    if (terms.length === 0 || expectTerm) throw refuse(source, 'An empty or unfinished OR list');
    return [{ kind: 'terms', terms }, close + 1];
  }
  const [term, end] = readBare(s, i, source);
  if (term === '') throw refuse(source, 'A field with no value');
  return [{ kind: 'terms', terms: [term] }, end];
}

function readQuoted(s: string, i: number, source: string): [string, number] {
  let out = '';
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '\\' && j + 1 < s.length) out += s[++j];
    else if (s[j] === '"') return [out, j + 1];
    else out += s[j];
  }
  throw refuse(source, 'An unclosed quote');
}

/** A bare term up to whitespace or `)`, with backslash escapes; wildcards are refused. */
function readBare(s: string, i: number, source: string): [string, number] {
  let out = '';
  let j = i;
  for (; j < s.length && !/[\s)]/.test(s[j]); j++) {
    if (s[j] === '\\' && j + 1 < s.length) out += s[++j];
    else if (s[j] === '*' || s[j] === '?') throw refuse(source, 'Wildcards in field values are not supported');
    else out += s[j];
  }
  return [out, j];
}

function tokenize(s: string): Item[] {
  const items: Item[] = [];
  for (let i = 0; i < s.length;) {
    if (/\s/.test(s[i])) {
      i++;
      continue;
    }
    const rest = s.slice(i);
    if (/^\*:\*(?=\s|$)/.test(rest)) {
      i += 3;
      continue;
    }
    const op = /^(AND|OR|&&|\|\|)(?=\s|$)/.exec(rest);
    if (op) {
      items.push({ kind: 'op', op: op[1] === 'OR' || op[1] === '||' ? 'OR' : 'AND' });
      i += op[0].length;
      continue;
    }
    const field = /^(NOT\s+|[+-])?([A-Za-z_][A-Za-z0-9_.]*):(?!\/\/)/.exec(rest);
    if (field) {
      const [value, end] = readValue(s, i + field[0].length, s);
      items.push({ kind: 'field', negated: !!field[1] && field[1] !== '+', field: field[2], value });
      i = end;
      continue;
    }
    // Words (and quoted phrases, -exclusions) for the full-text search, as written.
    const word = rest[0] === '"' ? readQuoted(s, i, s) : null;
    const end = word ? word[1] : i + (rest.search(/\s/) < 0 ? rest.length : rest.search(/\s/));
    items.push({ kind: 'text', raw: s.slice(i, end) });
    i = end;
  }
  return items;
}

/** `field:A OR field:B` becomes one clause with both values; any other OR next to a field clause is refused. */
function mergeOrs(items: Item[], source: string): Item[] {
  const out: Item[] = [];
  for (let k = 0; k < items.length; k++) {
    const item = items[k];
    if (item.kind !== 'op' || item.op !== 'OR') {
      out.push(item);
      continue;
    }
    const left = out.at(-1);
    const right = items[k + 1];
    if (left?.kind === 'text' && right?.kind === 'text') {
      out.push({ kind: 'text', raw: 'or' });
      continue;
    }
    if (
      left?.kind === 'field' &&
      right?.kind === 'field' &&
      left.field === right.field &&
      !left.negated &&
      !right.negated &&
      left.value.kind === 'terms' &&
      right.value.kind === 'terms'
    ) {
      left.value.terms.push(...right.value.terms);
      k++;
      continue;
    }
    throw refuse(source, 'OR is supported between words, or between values of one field');
  }
  return out.filter((item) => item.kind !== 'op');
}

const UNITS: Record<string, number> = {
  SECOND: 1000,
  MINUTE: 60_000,
  HOUR: 3_600_000,
  DAY: 86_400_000,
  WEEK: 7 * 86_400_000,
};

/** A real instant in the years 1 to 9999 (what the databases and ISO 8601 without a sign take). */
function inYears(at: Date): boolean {
  const year = at.getUTCFullYear();
  return Number.isFinite(at.getTime()) && year >= 1 && year <= 9999;
}

/** A Solr date (ISO 8601 in UTC, `Z` optional as in CKAN's own naive dates, or `NOW±n UNIT`), as bounds need it. */
function parseDate(text: string, op: TimeBound['op'], source: string): Date {
  const now = /^NOW((?:[+-]\d+(?:SECOND|MINUTE|HOUR|DAY|WEEK)S?)*)$/.exec(text);
  if (now) {
    let at = Date.now();
    for (const m of now[1].matchAll(/([+-])(\d+)([A-Z]+?)S?(?=[+-]|$)/g)) at += (m[1] === '-' ? -1 : 1) * Number(m[2]) * UNITS[m[3]];
    const date = new Date(at);
    if (!inYears(date)) throw refuse(source, `A date outside the years 1 to 9999: ${text}`);
    return date;
  }
  const m = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?)?Z?$/.exec(text);
  const at = m ? new Date(`${m[1]}T${m[2] ?? '00:00:00'}.${(m[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`) : null;
  if (!m || !at || !inYears(at)) throw refuse(source, `Not a date: ${text}`);
  // Timestamps are kept to the millisecond: a finer bound rounds the way that keeps its meaning.
  const finer = Number((m[3] ?? '').slice(3) || '0') > 0;
  const bound = finer && (op === 'gte' || op === 'lt') ? new Date(at.getTime() + 1) : at;
  // The rounding can carry past the last instant of 9999, which PostgreSQL cannot store.
  if (!inYears(bound)) throw refuse(source, `A date outside the years 1 to 9999: ${text}`);
  return bound;
}

interface Accumulator {
  text: string[];
  include: Partial<Record<SetField, string[]>>;
  exclude: Partial<Record<SetField, string[]>>;
  bounds: TimeBound[];
  nothing: boolean;
}

function apply(acc: Accumulator, item: Item & { kind: 'field' }, source: string) {
  const { field, value, negated } = item;
  if (field === 'text') {
    if (value.kind !== 'terms' || negated) throw refuse(source, 'text: takes words, not negated');
    acc.text.push(value.terms.map((t) => (t.includes(' ') ? `"${t}"` : t)).join(' or '));
    return;
  }
  if (field in CONSTANT_FIELDS) {
    if (value.kind !== 'terms') throw refuse(source, `${field} takes values, not ranges`);
    const matches = value.terms.includes(CONSTANT_FIELDS[field]);
    if (matches === negated) acc.nothing = true;
    return;
  }
  const dateField = DATE_FIELDS[field];
  if (dateField) {
    if (value.kind !== 'range' || negated) throw refuse(source, `${field} takes a range, [from TO to]`);
    if (value.from !== '*') {
      const op = value.fromIncl ? 'gte' : 'gt';
      acc.bounds.push({ field: dateField, op, at: parseDate(value.from, op, source) });
    }
    if (value.to !== '*') {
      const op = value.toIncl ? 'lte' : 'lt';
      acc.bounds.push({ field: dateField, op, at: parseDate(value.to, op, source) });
    }
    return;
  }
  const key = SET_FIELDS[field];
  if (!key) throw refuse(source, `Searching on the field "${field}" is not supported`);
  if (value.kind !== 'terms') throw refuse(source, `${field} takes values, not ranges`);
  const terms = value.terms.map((t) => t.trim()).filter(Boolean);
  if (terms.length === 0) throw refuse(source, `${field} has an empty value`);
  if (negated) {
    if (NOT_NEGATABLE.has(key)) throw refuse(source, `Excluding by ${field} is not supported`);
    acc.exclude[key] = [...(acc.exclude[key] ?? []), ...terms];
    return;
  }
  const before = acc.include[key];
  if (before === undefined) acc.include[key] = terms;
  else if (SINGLE_VALUED.has(key)) acc.include[key] = before.filter((t) => terms.includes(t));
  else if (before.length !== terms.length || before.some((t) => !terms.includes(t))) {
    throw refuse(source, `Two different ${field} conditions joined by AND are not supported; use ${field}:(A OR B) for either`);
  }
}

const tooMany = (field: string) =>
  unsupportedFilter(`More than ${MAX_FILTER_TERMS} values for ${field} in one search`, [
    { path: 'fq', message: `At most ${MAX_FILTER_TERMS} values per field` },
  ]);

/** Refuses a search naming more than MAX_FILTER_TERMS values for one field (included or excluded), or as many date bounds. */
function checkSizes(acc: Accumulator) {
  for (const [sign, sets] of [
    ['', acc.include],
    ['-', acc.exclude],
  ] as const) {
    for (const [key, terms] of Object.entries(sets)) {
      if (terms.length > MAX_FILTER_TERMS) throw tooMany(`${sign}${key === 'names' ? 'name' : key === 'ids' ? 'id' : key}`);
    }
  }
  if (acc.bounds.length > MAX_FILTER_TERMS) throw tooMany('metadata_modified/metadata_created');
}

/** Parses `q` and every `fq` (all ANDed) into the listing's filters and the words to search for. */
export function parseSearch(q: string | undefined, fqs: string[]): ParsedSearch {
  const acc: Accumulator = { text: [], include: {}, exclude: {}, bounds: [], nothing: false };
  for (const [i, source] of [q ?? '', ...fqs].entries()) {
    if (source.length > MAX_QUERY_CHARS) {
      throw unsupportedFilter(`${i === 0 ? 'q' : 'An fq'} is longer than ${MAX_QUERY_CHARS} characters`, [
        { path: i === 0 ? 'q' : 'fq', message: `At most ${MAX_QUERY_CHARS} characters` },
      ]);
    }
    for (const item of mergeOrs(tokenize(source), source)) {
      if (item.kind === 'text') acc.text.push(item.raw);
      else if (item.kind === 'field') apply(acc, item, source);
    }
    checkSizes(acc);
  }
  const filters: Partial<DatasetListQuery> = {};
  const { names, ids, ...sets } = acc.include;
  Object.assign(filters, sets);
  if (names) filters.names = names;
  if (ids) filters.ids = ids;
  if (acc.nothing) filters.ids = [];
  const exclusions = Object.entries(acc.exclude);
  if (exclusions.length) filters.exclude = Object.fromEntries(exclusions) as DatasetExclusions;
  if (acc.bounds.length) filters.time_bounds = acc.bounds;
  const text = acc.text
    .join(' ')
    .replace(/^\s*or\s+|\s+or\s*$/g, '')
    .trim();
  if (text.length > MAX_TEXT_CHARS) {
    throw unsupportedFilter(`The words to search for are longer than ${MAX_TEXT_CHARS} characters`, [
      { path: 'q', message: `At most ${MAX_TEXT_CHARS} characters of words` },
    ]);
  }
  return { ...(text ? { text } : {}), filters };
}
