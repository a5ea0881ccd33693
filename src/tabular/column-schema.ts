import { sqlIdentifier, sqlString, type DuckDbSession } from './duckdb-session.ts';

/**
 * The schema record of a queryable resource (spec §2), computed from the Parquet preview: DuckDB's
 * column names and types mapped to the spec's four types, and row count, null counts and numeric ranges
 * from one aggregate query.
 */

export type ColumnType = 'integer' | 'float' | 'boolean' | 'string';

/**
 * Integer bounds are decimal strings: BIGINT and HUGEINT values exceed what a JS number holds exactly.
 * Float bounds are numbers over the finite values only; NaN and ±Infinity (which JSON cannot carry) are
 * left out, and a column without any finite value has null bounds, as has an empty column.
 */
export type ColumnStats = { min: string | null; max: string | null } | { min: number | null; max: number | null };

export interface ColumnSchema {
  name: string;
  type: ColumnType;
  nullable: boolean;
  nullCount: number;
  stats?: ColumnStats;
  /**
   * What the column holds, independent of row order and of its name: the sum of DuckDB's hash of every
   * value in the preview (63 bits of it), nulls included, as a decimal string (the sum exceeds what a JS
   * number holds). Equal fingerprints mean, but for a hash collision, the same values, which is how a
   * schema diff tells a renamed column from a dropped one (src/domain/pipeline/schema-diff.ts). Only
   * comparable between previews made by the same DuckDB version; absent from schemas made before it was kept.
   */
  fingerprint?: string;
}

export interface TableSchema {
  rowCount: number;
  columns: ColumnSchema[];
  previewTruncated: boolean;
}

const INTEGER_TYPES = new Set([
  'TINYINT',
  'SMALLINT',
  'INTEGER',
  'BIGINT',
  'HUGEINT',
  'UTINYINT',
  'USMALLINT',
  'UINTEGER',
  'UBIGINT',
  'UHUGEINT',
]);
const FLOAT_TYPES = new Set(['FLOAT', 'DOUBLE', 'DECIMAL']);

/** `DECIMAL(18,3)` → float, `TIMESTAMP WITH TIME ZONE` → string; anything unlisted is a string. */
export function mapDuckDbType(duckdbType: string): ColumnType {
  const base = duckdbType.trim().toUpperCase().replace(/\(.*$/, '');
  if (INTEGER_TYPES.has(base)) return 'integer';
  if (FLOAT_TYPES.has(base)) return 'float';
  if (base === 'BOOLEAN') return 'boolean';
  return 'string';
}

export interface ParquetColumn {
  name: string;
  duckdbType: string;
}

export async function describeParquet(db: DuckDbSession, parquetPath: string): Promise<ParquetColumn[]> {
  const rows = await db.rows(`DESCRIBE SELECT * FROM read_parquet(${sqlString(parquetPath)})`);
  return rows.map((row) => ({ name: String(row.column_name), duckdbType: String(row.column_type) }));
}

export async function computeColumnSchemas(
  db: DuckDbSession,
  parquetPath: string,
  columns: ParquetColumn[],
): Promise<{ rowCount: number; columns: ColumnSchema[] }> {
  const aggregates = ['count(*) AS n'];
  columns.forEach((column, index) => {
    const ref = sqlIdentifier(column.name);
    // A sum, not bit_xor: under xor equal values cancel out in pairs, and any two columns whose values all
    // come in pairs look alike. Halved hashes fit a BIGINT, whose sum DuckDB adds faster than UBIGINT's.
    const fingerprint = `coalesce(sum((hash(${ref}) >> 1)::BIGINT), 0)::VARCHAR AS fp${index}`;
    aggregates.push(`count(${ref}) AS v${index}`, fingerprint);
    const type = mapDuckDbType(column.duckdbType);
    if (type === 'integer') {
      aggregates.push(`min(${ref})::VARCHAR AS lo${index}`, `max(${ref})::VARCHAR AS hi${index}`);
    } else if (type === 'float') {
      const value = `${ref}::DOUBLE`;
      const finite = `FILTER (WHERE isfinite(${value}))`;
      aggregates.push(`min(${value}) ${finite} AS lo${index}`, `max(${value}) ${finite} AS hi${index}`);
    }
  });
  const [row = {}] = await db.rows(`SELECT ${aggregates.join(', ')} FROM read_parquet(${sqlString(parquetPath)})`);
  const rowCount = Number(row.n ?? 0);
  return {
    rowCount,
    columns: columns.map((column, index) => {
      const type = mapDuckDbType(column.duckdbType);
      const nullCount = rowCount - Number(row[`v${index}`] ?? 0);
      const fingerprint = String(row[`fp${index}`]);
      const schema: ColumnSchema = { name: column.name, type, nullable: nullCount > 0, nullCount, fingerprint };
      if (type === 'integer') {
        schema.stats = { min: asString(row[`lo${index}`]), max: asString(row[`hi${index}`]) };
      } else if (type === 'float') {
        schema.stats = { min: asNumber(row[`lo${index}`]), max: asNumber(row[`hi${index}`]) };
      }
      return schema;
    }),
  };
}

function asString(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

function asNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
