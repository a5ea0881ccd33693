import test from 'ava';
import { queryProcessIds } from '../../src/query/process-pool.ts';
import { QUERY_LIMITS } from '../../src/query/sandbox.ts';
import { queryRunning, startTestApp, until, type TestApp } from '../helpers/app.ts';
import type { Auth } from '../helpers/client.ts';
import { isProblem } from '../helpers/problem.ts';
import { newUploadSlot } from '../helpers/upload-slot.ts';
import { uploadAndProcess } from '../helpers/pipeline.ts';

/**
 * Queries run in child processes that the API kills at the deadline (src/query/process-pool.ts): hostile
 * queries cannot outlive their timeout, hold the API's database connections or swell its memory. That a
 * huge result never reaches the API's event loop: test/unit/query-process-pool.test.ts.
 */

let app: TestApp;
let resourceId: string;

const CSV = ['id,label', ...Array.from({ length: 1_000 }, (_, i) => `${i},row ${i}`)].join('\n') + '\n';
const NEVER_ENDS = 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) AS n FROM r';
/** Generous: the machine may be busy with other test files. */
const MARGIN_MS = 10_000;

test.before(async () => {
  // More query processes than cores: the kills must hold even when queries compete for the CPU.
  app = await startTestApp({ QUERY_MAX_PROCESSES: '4' });
  const admin = { token: app.adminToken };
  resourceId = await newUploadSlot(app, 'isolation');
  await uploadAndProcess(app.api, resourceId, CSV, admin);
});
test.after.always(async () => app?.stop());

const query = (sql: string, auth: Auth) => app.api.post(`/api/v1/resources/${resourceId}/query`, { sql }, auth);
const processExists = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test.serial(
  'twenty never-ending queries of twenty callers are each 408 in time, their processes are killed, and the API answers meanwhile',
  async (t) => {
    t.timeout(120_000);
    const callers: Auth[] = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => ({ token: (await app.api.newUser(`hostile-${i}`)).token })),
    );
    const started = Date.now();
    const replies = callers.map((auth) => query(NEVER_ENDS, auth).then((reply) => ({ reply, afterMs: Date.now() - started })));
    await until('the queries hold their callers’ locks', () => queryRunning(app));
    await until('query processes are running', () => queryProcessIds().busy.length > 0);
    const hostile = new Set<number>();
    const watch = setInterval(() => queryProcessIds().busy.forEach((pid) => hostile.add(pid)), 50);

    // The same caller again is refused at once; another request of the API is answered meanwhile.
    isProblem(t, await query('SELECT 1 AS x', callers[0]!), 429, 'query_busy');
    const listed = await app.api.get('/api/v1/packages');
    t.is(listed.status, 200, listed.text);
    t.true(Date.now() - started < QUERY_LIMITS.timeoutMs, 'GET /packages answered before the queries’ deadline');

    for (const { reply, afterMs } of await Promise.all(replies)) {
      isProblem(t, reply, 408, 'query_timeout');
      t.true(afterMs < QUERY_LIMITS.timeoutMs + MARGIN_MS, `answered after ${afterMs} ms`);
    }
    clearInterval(watch);
    t.true(hostile.size >= 4, `${hostile.size} query processes seen running`);
    await until('every process that ran a hostile query is gone', () => [...hostile].every((pid) => !processExists(pid)), 5_000);
    t.deepEqual(queryProcessIds().busy, []);
    t.false(await queryRunning(app), 'no caller lock is left');
    const after = await query('SELECT count(*) AS n FROM data', callers[0]!);
    t.is(after.status, 200, after.text);
    t.deepEqual(after.body.rows, [{ n: '1000' }]);
  },
);

test.serial(
  'a query that needs too much memory is 400 query_too_large, the API’s memory stays as it was, and the next query works',
  async (t) => {
    t.timeout(60_000);
    const auth = { token: (await app.api.newUser('greedy')).token };
    const rssBefore = process.memoryUsage().rss;
    const reply = await query("SELECT repeat('x', 1000000000) AS s", auth);
    isProblem(t, reply, 400, 'query_too_large');
    t.regex(reply.body.detail, /more memory than a query may use/);
    t.true(process.memoryUsage().rss - rssBefore < 256 * 1024 * 1024, 'the API process did not hold the value');
    const next = await query('SELECT count(*) AS n FROM data', auth);
    t.is(next.status, 200, next.text);
  },
);
