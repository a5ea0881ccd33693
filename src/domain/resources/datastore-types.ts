/**
 * The DataStore's view of a preview's values: DuckDB's column types under the PostgreSQL type names a
 * CKAN DataStore reports (its tables are PostgreSQL tables), values as CKAN's JSON gives them, and the
 * rows as PostgreSQL's `COPY … TO STDOUT csv` writes them (records_format csv and tsv).
 */

const PG_TYPES: Record<string, { type: string; native: string }> = {
  BOOLEAN: { type: 'bool', native: 'boolean' },
  TINYINT: { type: 'int2', native: 'smallint' },
  SMALLINT: { type: 'int2', native: 'smallint' },
  UTINYINT: { type: 'int2', native: 'smallint' },
  INTEGER: { type: 'int4', native: 'integer' },
  USMALLINT: { type: 'int4', native: 'integer' },
  BIGINT: { type: 'int8', native: 'bigint' },
  UINTEGER: { type: 'int8', native: 'bigint' },
  FLOAT: { type: 'float4', native: 'real' },
  DOUBLE: { type: 'float8', native: 'double precision' },
  DATE: { type: 'date', native: 'date' },
  TIME: { type: 'time', native: 'time without time zone' },
  TIMESTAMP: { type: 'timestamp', native: 'timestamp without time zone' },
  TIMESTAMP_S: { type: 'timestamp', native: 'timestamp without time zone' },
  TIMESTAMP_MS: { type: 'timestamp', native: 'timestamp without time zone' },
  TIMESTAMP_NS: { type: 'timestamp', native: 'timestamp without time zone' },
  'TIMESTAMP WITH TIME ZONE': { type: 'timestamptz', native: 'timestamp with time zone' },
  INTERVAL: { type: 'interval', native: 'interval' },
  UUID: { type: 'uuid', native: 'uuid' },
  BLOB: { type: 'bytea', native: 'bytea' },
  VARCHAR: { type: 'text', native: 'text' },
};

/** Integers wider than PostgreSQL's bigint are numeric there. */
const NUMERIC = { type: 'numeric', native: 'numeric' };

/** DuckDB's type (`BIGINT`, `DECIMAL(18,3)`, `VARCHAR[]`) as CKAN names it (`int8`, `numeric`, `_text`) and PostgreSQL's native name. */
export function ckanType(duckdbType: string): { type: string; native: string } {
  const t = duckdbType.trim().toUpperCase();
  if (t.endsWith('[]')) {
    const inner = ckanType(t.slice(0, -2));
    return { type: `_${inner.type}`, native: `${inner.native}[]` };
  }
  if (/^(STRUCT|MAP|UNION|JSON)\b/.test(t)) return { type: 'json', native: 'json' };
  if (/^(DECIMAL|NUMERIC|HUGEINT|UHUGEINT|UBIGINT|VARINT|BIGNUM)\b/.test(t)) return NUMERIC;
  return PG_TYPES[t] ?? PG_TYPES.VARCHAR;
}

const NUMBER_TYPES = new Set(['int', 'int2', 'int4', 'int8', 'numeric', 'float', 'float4', 'float8']);

/**
 * A value from the sandbox (DuckDB's JSON: 64-bit integers and decimals as text) as CKAN's JSON carries
 * it: a number whenever the text is one a JSON number holds exactly, else the text.
 */
export function ckanValue(value: unknown, type: string): unknown {
  if (typeof value === 'string' && NUMBER_TYPES.has(type)) {
    const n = Number(value);
    if (Number.isFinite(n) && (Number.isInteger(n) ? Number.isSafeInteger(n) && String(n) === value : true)) return n;
  }
  return value;
}

/**
 * One field as PostgreSQL's CSV COPY writes it: NULL as nothing, an empty text quoted, a value holding
 * the delimiter, a quote or a line break quoted with quotes doubled; booleans as t and f.
 */
function copyField(value: unknown, delimiter: string): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'boolean' ? (value ? 't' : 'f') : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (text === '' || text === '\\.' || text.includes(delimiter) || /["\r\n]/.test(text)) return `"${text.replaceAll('"', '""')}"`;
  return text;
}

/** Rows as `COPY (…) TO STDOUT csv [DELIMITER '\t']` gives them: no header, one line per row. */
export function copyText(rows: unknown[][], delimiter: ',' | '\t'): string {
  return rows.map((row) => `${row.map((v) => copyField(v, delimiter)).join(delimiter)}\n`).join('');
}
