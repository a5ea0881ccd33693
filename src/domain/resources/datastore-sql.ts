import { invalidParameters } from '../errors.ts';
import type { ColumnSchema } from '../../tabular/column-schema.ts';
import { sqlIdentifier, sqlString } from '../../tabular/duckdb-session.ts';

/**
 * datastore_search as SQL over the view `data` (the preview with its row number as `_id`), with CKAN's
 * semantics (ckanext/datastore backend/postgres.py): filters are equality or membership, `q` a full-text
 * match over the row or per field, sort clauses "field [asc|desc] [nulls first|last]". Every name the
 * caller gives is checked against the preview's columns and written as a quoted identifier; every value
 * is a quoted literal (or a number JSON gave): no caller text reaches the SQL otherwise.
 */

export interface DatastoreQuery {
  /** Text: every word somewhere in the row; a dict: every word of each value in that field. */
  q?: string | Record<string, unknown>;
  filters?: Record<string, unknown>;
  /** Sort clauses, one per item. */
  sort?: string[];
  fields?: string[];
  distinct: boolean;
  limit: number;
  offset: number;
  /** The `_id` the previous page ended on (keyset paging, when the order is `_id`). */
  after?: number;
  includeTotal: boolean;
}

/** An output column: its CKAN field id and the SQL that computes it. */
interface Output {
  id: string;
  sql: string;
  /** CKAN's type where it is fixed (`_id` is int, a rank float); else DuckDB's type decides. */
  type?: string;
}

export interface DatastorePlan {
  outputs: Array<{ id: string; type?: string }>;
  /** The page, with the total as column `t` when it must be counted, and `k` the last row's `_id` for keyset paging. */
  pageSql: string;
  /** The total alone, for when the page is empty. */
  countSql?: string;
  /** The order is `_id` ascending: the page can end on a cursor. */
  keyset: boolean;
}

/** CKAN's refusal of a name or value it cannot use: `{sort: ['invalid value "x desc"']}`. */
const invalid = (path: string, value: string) => invalidParameters([{ path, message: `invalid value "${value}"` }]);

/** Lower-case words, as the full-text match sees them: runs of letters and digits. */
export const searchWords = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * A word matches where a word of the text starts with it ("count" finds "counts" and "county"), in any
 * case. Not PostgreSQL's stemming and ranking (which DuckDB has no built-in for), but the same shape:
 * every word must match. The word is letters and digits only, so nothing in it is a regex operator.
 */
const wordPattern = (word: string) => sqlString(`(^|[^\\pL\\pN])${word}`);

function textMatch(doc: string, words: string[]): { where: string; rank: string } {
  if (!words.length) return { where: 'false', rank: '0.0' };
  const hits = words.map((w) => `len(regexp_extract_all(${doc}, ${wordPattern(w)}))`).join(' + ');
  return {
    where: words.map((w) => `regexp_matches(${doc}, ${wordPattern(w)})`).join(' AND '),
    // ts_rank with normalization 32 is rank/(rank+1); here the rank is the number of matching words.
    rank: `((${hits}) / ((${hits}) + 1.0))::DOUBLE`,
  };
}

/**
 * A column of the view, qualified: DuckDB resolves a bare name in ORDER BY to an output alias first, and
 * the page's outputs are named `c0`…, `t` and `k`, so a data column of one of those names sorted by the
 * output instead.
 */
const column = (name: string) => `data.${sqlIdentifier(name)}`;

function literal(value: unknown, schema: ColumnSchema | undefined, path: string, shown: string): string {
  // PostgreSQL compares a text column with the text of the value (CKAN makes it str(value) for them).
  if (schema?.type === 'string' && value !== null && typeof value !== 'object') return sqlString(String(value));
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  // Text for a number column must be that number exactly, as PostgreSQL reads it: DuckDB would round "43.5"
  // to the integer 44 and match another row.
  if (typeof value === 'string' && schema?.type === 'integer') {
    if (!/^\s*[+-]?\d+\s*$/.test(value)) throw invalid(path, shown);
    return value.trim();
  }
  if (typeof value === 'string' && schema?.type === 'float') {
    if (!/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(value)) throw invalid(path, shown);
    return `${value.trim()}::DOUBLE`;
  }
  if (typeof value === 'string') return sqlString(value);
  throw invalid(path, shown);
}

/** "field desc nulls last" → [field, order]; PostgreSQL puts NULLs last ascending and first descending. */
function parseSortClause(clause: string): { field: string; order: string } | null {
  const m = /^(.+?)( +(asc|desc))?( nulls +(first|last) *)?$/i.exec(clause.trim());
  if (!m) return null;
  let field = m[1];
  if (field.length > 1 && field.startsWith('"') && field.endsWith('"')) field = field.slice(1, -1);
  const direction = (m[3] ?? 'asc').toUpperCase();
  const nulls = m[5] ? m[5].toUpperCase() : direction === 'ASC' ? 'LAST' : 'FIRST';
  return { field, order: `${direction} NULLS ${nulls}` };
}

export function planDatastoreSearch(fileColumns: ColumnSchema[], query: DatastoreQuery, knownTotal: boolean): DatastorePlan {
  // A file's own `_id` is not in the view: the row number stands in its place (sandbox.ts).
  const columns = fileColumns.filter((c) => c.name !== '_id');
  const byName = new Map(columns.map((c) => [c.name, c]));
  const idColumn: ColumnSchema = { name: '_id', type: 'integer', nullable: false, nullCount: 0 };
  const fieldOf = (name: string) => (name === '_id' ? idColumn : byName.get(name));
  const where: string[] = [];
  const ranks: Output[] = [];

  for (const [field, value] of Object.entries(query.filters ?? {})) {
    const schema = fieldOf(field);
    if (!schema) throw invalid('filters', field);
    const values = Array.isArray(value) ? value : [value];
    // `= NULL` is never true in PostgreSQL: a null filter value matches no row there either.
    const kept = values.filter((v) => v !== null);
    const literals = kept.map((v) => literal(v, schema, 'filters', field));
    where.push(literals.length === 0 ? 'false' : `${column(field)} IN (${literals.join(', ')})`);
  }

  if (typeof query.q === 'string') {
    const doc = `lower(concat_ws(' ', ${columns.map((c) => `CAST(${column(c.name)} AS VARCHAR)`).join(', ') || "''"}))`;
    const match = textMatch(doc, searchWords(query.q));
    where.push(match.where);
    ranks.push({ id: 'rank', sql: match.rank, type: 'float' });
  } else if (query.q) {
    for (const [field, value] of Object.entries(query.q)) {
      if (!byName.has(field) || typeof value !== 'string') throw invalid('q', field);
      const match = textMatch(`lower(CAST(${column(field)} AS VARCHAR))`, searchWords(value));
      where.push(match.where);
      ranks.push({ id: `rank ${field}`, sql: match.rank, type: 'float' });
    }
  }

  const all: Output[] = [
    { id: '_id', sql: column('_id'), type: 'int' },
    ...columns.map((c) => ({ id: c.name, sql: column(c.name) })),
    ...ranks,
  ];
  const known = new Map(all.map((o) => [o.id, o]));
  const fieldIds = query.fields?.length ? query.fields : all.map((o) => o.id);
  const unknownField = fieldIds.find((f) => !known.has(f));
  if (unknownField !== undefined) throw invalid('fields', unknownField);
  const outputs = fieldIds.map((id) => known.get(id)!);

  const sorts = (query.sort ?? []).map((clause) => {
    const parsed = parseSortClause(clause);
    if (!parsed || !known.has(parsed.field)) throw invalid('sort', clause);
    return { output: known.get(parsed.field)!, order: parsed.order };
  });
  // CKAN orders by relevance when text is searched and no sort is given, else by `_id`.
  if (!sorts.length && ranks.length && !query.distinct) sorts.push(...ranks.map((output) => ({ output, order: 'DESC NULLS LAST' })));
  const byId =
    !query.distinct && (sorts.length === 0 || (sorts.length === 1 && sorts[0].output.id === '_id' && sorts[0].order.startsWith('ASC')));

  const select = outputs.map((o, i) => `${o.sql} AS "c${i}"`);
  const filter = where.length ? where.map((w) => `(${w})`).join(' AND ') : '';
  const limit = `LIMIT ${query.limit}`;
  if (query.distinct) {
    const position = new Map(outputs.map((o, i) => [o.id, i]));
    const order = sorts.length
      ? sorts.map(({ output, order }) => {
          if (!position.has(output.id))
            throw invalidParameters([{ path: 'sort', message: `"${output.id}" must be one of the fields when distinct is true` }]);
          return `"c${position.get(output.id)}" ${order}`;
        })
      : outputs.map((_, i) => `"c${i}" ASC NULLS LAST`);
    const rows = `SELECT DISTINCT ${select.join(', ')} FROM data${filter ? ` WHERE ${filter}` : ''}`;
    const count = `(SELECT count(*) FROM page_rows)`;
    return {
      outputs,
      keyset: false,
      pageSql: `WITH page_rows AS (${rows}) SELECT *${query.includeTotal ? `, ${count} AS "t"` : ''} FROM page_rows ORDER BY ${order.join(', ')} ${limit} OFFSET ${query.offset}`,
      countSql: `WITH page_rows AS (${rows}) SELECT ${count} AS "t"`,
    };
  }

  const countWhere = filter ? ` WHERE ${filter}` : '';
  const count = `(SELECT count(*) FROM data${countWhere})`;
  const pageWhere = [...(filter ? [filter] : [])];
  let offset = query.offset;
  if (byId && query.after !== undefined) {
    pageWhere.push(`${column('_id')} > ${query.after}`);
    offset = 0;
  } else if (byId && !filter) {
    // Row numbers have no gaps: the rows after `offset` are those with a greater `_id`, found without reading the ones before.
    pageWhere.push(`${column('_id')} > ${query.offset}`);
    offset = 0;
  }
  // `_id` order is the preview's own order: DuckDB keeps a query's rows in scan order when it has no
  // ORDER BY (preserve_insertion_order, on in the sandbox), and a LIMIT then stops the scan early where
  // sorting by `_id` would read the whole file first (bench datastore: 99 → 11 ms for a first page).
  const order = byId
    ? ''
    : ` ORDER BY ${[...sorts.map(({ output, order }) => `${output.sql} ${order}`), `${column('_id')} ASC`].join(', ')}`;
  return {
    outputs,
    keyset: byId,
    pageSql:
      `SELECT ${[...select, ...(query.includeTotal && !knownTotal ? [`${count} AS "t"`] : []), ...(byId ? [`${column('_id')} AS "k"`] : [])].join(', ')}` +
      ` FROM data${pageWhere.length ? ` WHERE ${pageWhere.join(' AND ')}` : ''}${order} ${limit}` +
      (offset ? ` OFFSET ${offset}` : ''),
    countSql: `SELECT ${count} AS "t"`,
  };
}

/** Whether the total is the preview's row count, known without counting. */
export const totalIsRowCount = (query: DatastoreQuery) => !query.distinct && !query.q && Object.keys(query.filters ?? {}).length === 0;
