import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import test from 'ava';
import { DuckDBInstance } from '@duckdb/node-api';
import { queryProcessIds, runInQueryProcess } from '../../src/query/process-pool.ts';
import { QUERY_LIMITS, rowObjects, type QueryLimits } from '../../src/query/sandbox.ts';

/** The query processes on their own (src/query/process-pool.ts), without the API around them. */

let dir: string;
let parquet: string;

test.before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'almanac-query-pool-'));
  parquet = path.join(dir, 'data.parquet');
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run(`COPY (SELECT range AS id, 'row ' || range AS label FROM range(1000)) TO '${parquet}' (FORMAT parquet)`);
  connection.closeSync();
  instance.closeSync();
});
test.after.always(async () => fs.rm(dir, { recursive: true, force: true }));

const run = (sql: string, limits: QueryLimits = QUERY_LIMITS) => runInQueryProcess({ parquetPath: parquet, sql, limits }, 4);

test.serial('20 million values are cut to 5 MB in the query process: this event loop never stalls', async (t) => {
  t.timeout(60_000);
  await run('SELECT 1'); // the first query also starts a process
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const result = await run('SELECT range(2000) AS r FROM range(10001)');
  delay.disable();
  t.true(result.truncated);
  t.true(result.rowCount > 0 && result.rowCount < 10_000, String(result.rowCount));
  // The cap is on the answer's JSON, rows as objects.
  t.true(Buffer.byteLength(JSON.stringify(rowObjects(result.columns, result.rows))) <= QUERY_LIMITS.maxResultBytes);
  // Converting the whole result here used to stall the API for ~8 s; now only the capped rows arrive.
  t.true(delay.max / 1e6 < 1_000, `event loop stalled ${Math.round(delay.max / 1e6)} ms`);
});

test.serial('a process running a query is below the API’s priority in every thread, DuckDB’s included', async (t) => {
  t.timeout(60_000);
  if (!(await fs.stat('/proc/self/task').catch(() => null))) return t.pass('no /proc here');
  const niceness = async (pid: number) => {
    const threads = await fs.readdir(`/proc/${pid}/task`);
    const stats = await Promise.all(threads.map((tid) => fs.readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => null)));
    return stats.flatMap((stat) => (stat === null ? [] : [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])]));
  };
  await run('SELECT 1');
  const never = 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r';
  const running = run(never, { ...QUERY_LIMITS, timeoutMs: 3_000 }).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 1_500));
  const [pid] = queryProcessIds().busy;
  const values = pid === undefined ? [] : await niceness(pid);
  await running;
  t.true(values.length > 2, `threads: ${values.length}`);
  // Lowering is refused to no one; a runner already below 5 stays where it is.
  t.deepEqual(new Set(values), new Set([Math.max(os.getPriority(), 5)]));
});

test.serial('at the deadline the process is killed, even while the query waited for a free one', async (t) => {
  t.timeout(60_000);
  const limits = { ...QUERY_LIMITS, timeoutMs: 2_000 };
  const never = 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r';
  const started = Date.now();
  const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => run(never, limits)));
  for (const outcome of outcomes) t.like(outcome, { status: 'rejected', reason: { code: 'query_timeout' } });
  t.true(Date.now() - started < limits.timeoutMs + 3_000, `${Date.now() - started} ms`);
  t.deepEqual(queryProcessIds().busy, []);
  t.like(await run('SELECT count(*) AS n FROM data'), { columns: ['n'], rows: [['1000']], truncated: false });
});
