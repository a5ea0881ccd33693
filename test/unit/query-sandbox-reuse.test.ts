import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { DuckDBInstance } from '@duckdb/node-api';
import { lastSandboxRun, QueryError, runSandboxedQuery, type QueryTable } from '../../src/query/sandbox.ts';

/**
 * Which DuckDB instance a query runs in (src/query/sandbox.ts): the DataStore's planned SQL may run where
 * planned SQL of the same tables ran before; a caller's SQL only ever in an instance no query has run in.
 * In this process, one query at a time, as a query process runs them.
 */

let dir: string;
let tables: QueryTable[];
let other: QueryTable[];

test.before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'almanac-sandbox-reuse-'));
  const file = (name: string) => path.join(dir, name);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  for (const name of ['a.parquet', 'b.parquet']) {
    await connection.run(`COPY (SELECT range AS n, 'row ' || range AS label FROM range(500)) TO '${file(name)}' (FORMAT parquet)`);
  }
  connection.closeSync();
  instance.closeSync();
  tables = [{ name: 'data', path: file('a.parquet'), rowIds: true }];
  other = [{ name: 'data', path: file('b.parquet'), rowIds: true }];
});
test.after.always(async () => fs.rm(dir, { recursive: true, force: true }));

const planned = (sql: string, on = tables) => runSandboxedQuery(on[0].path, sql, undefined, { tables: on, planned: true });
const callers = (sql: string) => runSandboxedQuery(tables[0].path, sql, undefined, { tables });
const PAGE = 'SELECT "_id", "label" FROM data WHERE "n" >= 490 ORDER BY "n" DESC LIMIT 3';

test.serial('planned queries of one table share a sandbox; a caller’s SQL never runs in it', async (t) => {
  const first = await planned(PAGE);
  const a = lastSandboxRun()!;
  // Again, from the statement the sandbox kept: the same rows.
  const again = await planned(PAGE);
  const b = lastSandboxRun()!;
  t.deepEqual(again.rows, first.rows);
  // `_id` is a BIGINT: text in the query's JSON.
  t.deepEqual(first.rows, [
    ['500', 'row 499'],
    ['499', 'row 498'],
    ['498', 'row 497'],
  ]);
  t.is(b.serial, a.serial);
  t.is(b.plannedBefore, a.plannedBefore + 1);

  await callers('SELECT count(*) FROM data');
  const c = lastSandboxRun()!;
  t.not(c.serial, a.serial);
  t.is(c.plannedBefore, 0);

  // The next planned query starts a sandbox of its own: the caller's is never kept.
  await planned('SELECT count(*) FROM data');
  const d = lastSandboxRun()!;
  t.not(d.serial, c.serial);
  t.is(d.plannedBefore, 0);
  await planned(PAGE);
  t.is(lastSandboxRun()!.serial, d.serial);

  // Another table: another sandbox.
  await planned('SELECT count(*) FROM data', other);
  t.not(lastSandboxRun()!.serial, d.serial);
});

test.serial('after planned queries a caller’s SQL is still checked: only the table, its CTEs and generators', async (t) => {
  await planned(PAGE);
  const refused = await t.throwsAsync(callers(`SELECT * FROM read_parquet('${other[0].path}')`), { instanceOf: QueryError });
  t.is(refused?.code, 'query_invalid');
  t.is(lastSandboxRun()!.plannedBefore, 0);
});

test.serial('a planned query that fails leaves the sandbox usable for the next', async (t) => {
  const failed = await t.throwsAsync(planned('SELECT "missing" FROM data'), { instanceOf: QueryError });
  t.is(failed?.code, 'query_invalid');
  const at = lastSandboxRun()!;
  const page = await planned(PAGE);
  t.is(page.rows.length, 3);
  t.is(lastSandboxRun()!.serial, at.serial);
});
