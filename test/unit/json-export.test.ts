import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { DuckDBInstance } from '@duckdb/node-api';
import { copyTo, jsonSelectList, type ExportColumn } from '../../src/query/export-sql.ts';

/**
 * The JSON lines export's select list (export-sql.ts), written by DuckDB's own COPY: every line is JSON a
 * strict parser reads (no bare NaN or Infinity), with the values the query's JSON answer gives.
 */
test('NaN and the infinities are text, nulls null, timestamps ISO 8601; every line is strict JSON', async (t) => {
  const duck = await DuckDBInstance.create(':memory:');
  const db = await duck.connect();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'json-export-'));
  try {
    await db.run("SET TimeZone = 'UTC'");
    await db.run(`CREATE TABLE t AS SELECT * FROM (VALUES
      (1, 1.5::DOUBLE, 2.5::FLOAT, TIMESTAMP '2024-01-01 10:00:00.5', TIMESTAMPTZ '2024-01-01 10:00:00+00', 'a'),
      (2, 'NaN'::DOUBLE, 'inf'::FLOAT, NULL, NULL, NULL),
      (3, '-inf'::DOUBLE, NULL, TIMESTAMP '2024-02-03 04:05:06', TIMESTAMPTZ '2024-01-01 10:00:00+02', 'c')
    ) v(id, d, f, ts, tz, s)`);
    const columns: ExportColumn[] = (await db.runAndReadAll('DESCRIBE SELECT * FROM t'))
      .getRowObjects()
      .map((row) => ({ name: String(row.column_name), type: String(row.column_type) }));
    const file = path.join(dir, 'out.jsonl');
    await db.run(copyTo(`SELECT ${jsonSelectList(columns)} FROM t ORDER BY id`, file, 'FORMAT json'));
    const lines = (await fs.readFile(file, 'utf8')).trim().split('\n');
    t.deepEqual(
      lines.map((line) => JSON.parse(line)),
      [
        { id: 1, d: 1.5, f: 2.5, ts: '2024-01-01T10:00:00.5', tz: '2024-01-01T10:00:00Z', s: 'a' },
        { id: 2, d: 'NaN', f: 'Infinity', ts: null, tz: null, s: null },
        { id: 3, d: '-Infinity', f: null, ts: '2024-02-03T04:05:06', tz: '2024-01-01T08:00:00Z', s: 'c' },
      ],
    );
  } finally {
    db.closeSync();
    duck.closeSync();
    await fs.rm(dir, { recursive: true, force: true });
  }
});
