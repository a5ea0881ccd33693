/**
 * What the tabular tests share: where the fixture files live, a scratch directory per test, and an
 * unconfined DuckDB to read previews back and to ask what DuckDB infers from a file on its own.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { ExecutionContext } from 'ava';
import { SHARED_DATA } from '../helpers/shared-data.ts';

export const CSV_EDGE = join(SHARED_DATA, 'csv-edge');
export const REAL_CSV = join(SHARED_DATA, 'real-csv');

/** A fresh directory removed when the test ends, pass or fail. */
export async function scratchDir(t: ExecutionContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'almanac-tabular-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

export async function query(sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Every preview row with each value as DuckDB's text of it (NULL stays null), in file order. */
export async function previewRowsAsText(parquetPath: string): Promise<Record<string, string | null>[]> {
  const rows = await query(`SELECT COLUMNS(*)::VARCHAR FROM read_parquet(${sqlString(parquetPath)})`);
  return rows as Record<string, string | null>[];
}
