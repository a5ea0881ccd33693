import type { Client } from '@temporalio/client';
import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ensureLinkCheckSchedule, LINK_CHECK_SCHEDULE_ID } from '../../src/temporal/schedules.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { onlySysadmins, type Call } from '../helpers/access.ts';
import { as, type Auth, type Reply } from '../helpers/client.ts';
import { isProblem } from '../helpers/problem.ts';

/**
 * Link health over HTTP: link resources point at a local HTTP server that answers each way a link can
 * (fine, missing, refusing HEAD, dropping HEAD, slow, redirecting, looping), the real link-check
 * workflow checks them through the safe fetch (private networks allowed for this app only), and
 * /admin/health shows the results. The tests run in order: each builds on the results before it.
 */

let app: TestApp;
let client: Client;
let server: http.Server;
let base: string;
const heard: string[] = [];
let flakyStatus = 404;
const admin = (): Auth => ({ token: app.adminToken });

test.before(async () => {
  server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    heard.push(`${req.method} ${path}`);
    const hops = /^\/redirect\/(\d+)$/.exec(path);
    if (hops) {
      const n = Number(hops[1]);
      return res.writeHead(302, { location: n > 1 ? `/redirect/${n - 1}` : '/ok' }).end();
    }
    switch (path) {
      case '/ok':
        return res.end('fine');
      case '/no-head':
        return req.method === 'HEAD' ? res.writeHead(405, { allow: 'GET' }).end() : res.end('fine');
      case '/head-drops':
        if (req.method === 'HEAD') return req.socket.destroy();
        return res.end('fine');
      case '/slow':
        return; // never answers
      case '/loop':
        return res.writeHead(301, { location: '/loop' }).end();
      case '/server-error':
        return res.writeHead(500).end();
      case '/flaky':
        return res.writeHead(flakyStatus).end();
      default:
        return res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app = await startTestApp({ FETCH_ALLOW_PRIVATE_NETWORKS: 'true', LINK_CHECK_TIMEOUT: '1s' });
  client = app.almanac.services.jobs.client;
});
test.after.always(async () => {
  await app?.stop();
  server?.closeAllConnections();
  server?.close();
});

const health = (query = '') => app.api.get(`/api/v1/admin/health${query}`, admin());
const stats = () => app.api.get('/api/v1/admin/health/stats', admin());
const rowsOf = (reply: Reply) => (reply.body?.results ?? []) as Record<string, any>[];

/** Starts a check through the API and waits for its run to end. */
async function checkNow(t: { is(a: unknown, b: unknown, m?: string): void }) {
  const started = await app.api.post('/api/v1/admin/health/check', undefined, admin());
  t.is(started.status, 202, started.text);
  await client.workflow.getHandle(started.body.workflowId, started.body.runId).result();
  return started.body as { workflowId: string; runId: string };
}

const expected: Record<string, { status: string; httpStatus: number | null; error: RegExp | null }> = {
  '/ok': { status: 'ok', httpStatus: 200, error: null },
  '/missing': { status: 'broken', httpStatus: 404, error: /^HTTP 404 Not Found$/ },
  '/no-head': { status: 'ok', httpStatus: 200, error: null },
  '/head-drops': { status: 'ok', httpStatus: 200, error: null },
  '/slow': { status: 'timeout', httpStatus: null, error: /no complete answer within 1000 ms/ },
  '/redirect/3': { status: 'ok', httpStatus: 200, error: null },
  '/loop': { status: 'broken', httpStatus: null, error: /^more than 5 redirects$/ },
  '/server-error': { status: 'broken', httpStatus: 500, error: /^HTTP 500 Internal Server Error$/ },
  '/flaky': { status: 'broken', httpStatus: 404, error: /^HTTP 404/ },
};
const METADATA_URL = 'http://169.254.169.254/latest/meta-data/';
let resourceIds: Record<string, string> = {};
let packageId = '';

test.serial('the health endpoints are for sysadmins only: anonymous is 401, a user 403', async (t) => {
  const user = await app.api.newUser('health-outsider');
  const calls: Call[] = [
    ['GET', '/api/v1/admin/health'],
    ['GET', '/api/v1/admin/health/stats'],
    ['POST', '/api/v1/admin/health/check'],
  ];
  await onlySysadmins(t, app.api, calls, [as(user)]);
  t.deepEqual((await app.api.get('/api/v1/admin/jobs?type=link-check', admin())).body.count, 0, 'the refused POST started nothing');
});

test.serial('before any check the list is empty and the stats are zero', async (t) => {
  t.deepEqual((await health()).body, { count: 0, offset: 0, limit: 20, results: [] });
  t.deepEqual((await stats()).body, { total: 0, ok: 0, broken: 0, timeout: 0, lastCheckedAt: null });
});

test.serial(
  'a check records each link of the active datasets: ok, 404, HEAD refused then GET, slow, redirects, loops, refused address',
  async (t) => {
    await app.api.post('/api/v1/organizations', { name: 'health-org' }, admin());
    const links = [
      ...Object.keys(expected).map((path) => ({ name: path, url: `${base}${path}` })),
      { name: 'metadata', url: METADATA_URL },
    ];
    const active = await app.api.post(
      '/api/v1/packages',
      {
        name: 'health-links',
        ownerOrg: 'health-org',
        licenseId: 'cc-by',
        resources: [...links, { name: 'an upload', urlType: 'upload', format: 'CSV' }],
      },
      admin(),
    );
    t.is(active.status, 201, active.text);
    packageId = active.body.id;
    resourceIds = Object.fromEntries(active.body.resources.map((r: { name: string; id: string }) => [r.name, r.id]));
    // Links of a draft and of a deleted dataset are not checked.
    const draft = await app.api.post('/api/v1/packages/drafts', { title: 'health draft' }, admin());
    t.is((await app.api.post(`/api/v1/packages/${draft.body.id}/resources`, { url: `${base}/draft-link` }, admin())).status, 201);
    await app.api.post(
      '/api/v1/packages',
      { name: 'health-gone', ownerOrg: 'health-org', licenseId: 'cc-by', resources: [{ url: `${base}/gone-link` }] },
      admin(),
    );
    t.is((await app.api.delete('/api/v1/packages/health-gone', admin())).status, 204);

    const before = Date.now();
    const run = await checkNow(t);
    t.is(run.workflowId, 'link-check');

    const list = await health('?limit=100');
    t.is(list.status, 200, list.text);
    t.is(list.body.count, links.length);
    t.is(rowsOf(list).length, links.length);
    for (const [path, want] of Object.entries(expected)) {
      const row = rowsOf(list).find((r) => r.url === `${base}${path}`);
      t.truthy(row, path);
      t.like(row, { resourceId: resourceIds[path], packageId, status: want.status, httpStatus: want.httpStatus }, path);
      if (want.error) t.regex(row!.error, want.error, path);
      else t.is(row!.error, null, path);
      t.true(Number.isInteger(row!.latencyMs) && row!.latencyMs >= 0, path);
      t.true(Date.parse(row!.checkedAt) >= before - 1000, path);
    }
    const refused = rowsOf(list).find((r) => r.url === METADATA_URL)!;
    t.like(refused, { status: 'broken', httpStatus: null });
    t.is(refused.error, '169.254.169.254 is a cloud metadata address');
    t.true(rowsOf(list).find((r) => r.url === `${base}/slow`)!.latencyMs >= 900);

    t.true(heard.includes('HEAD /no-head') && heard.includes('GET /no-head'), 'HEAD refused, then GET');
    t.true(heard.includes('GET /head-drops'), 'HEAD dropped, then GET');
    t.false(
      heard.some((h) => h.endsWith('/draft-link') || h.endsWith('/gone-link')),
      'draft and deleted datasets are not checked',
    );
  },
);

test.serial('filters by status, pages, and 400 for an unknown status', async (t) => {
  const broken = await health('?status=broken');
  t.is(broken.body.count, 5);
  t.true(rowsOf(broken).every((r) => r.status === 'broken'));
  t.is((await health('?status=timeout')).body.count, 1);
  t.is((await health('?status=ok')).body.count, 4);

  const all = await health('?limit=100');
  const paged: string[] = [];
  for (let offset = 0; offset < all.body.count; offset += 3) {
    const part = await health(`?limit=3&offset=${offset}`);
    t.like(part.body, { count: all.body.count, offset, limit: 3 });
    paged.push(...rowsOf(part).map((r) => r.resourceId));
  }
  t.deepEqual(
    paged,
    rowsOf(all).map((r) => r.resourceId),
  );

  for (const query of ['?status=down', '?status=OK', '?limit=101']) isProblem(t, await health(query), 400, 'invalid_parameters');
});

test.serial('stats count the results by status and give the last check time', async (t) => {
  const all = rowsOf(await health('?limit=100'));
  const reply = await stats();
  t.is(reply.status, 200, reply.text);
  t.deepEqual(reply.body, {
    total: 10,
    ok: 4,
    broken: 5,
    timeout: 1,
    lastCheckedAt: all
      .map((r) => r.checkedAt)
      .sort()
      .at(-1),
  });
});

test.serial('the next check replaces each result; a deleted resource loses its row; two requests at once share one run', async (t) => {
  const firstChecked = rowsOf(await health('?limit=100')).find((r) => r.url === `${base}/flaky`)!.checkedAt;
  flakyStatus = 200;
  t.is((await app.api.delete(`/api/v1/resources/${resourceIds['/server-error']}`, admin())).status, 204);

  const [one, two] = await Promise.all([
    app.api.post('/api/v1/admin/health/check', undefined, admin()),
    app.api.post('/api/v1/admin/health/check', undefined, admin()),
  ]);
  t.is(one.status, 202, one.text);
  t.is(two.status, 202, two.text);
  t.is(two.body.runId, one.body.runId, 'joined, not started twice');
  await client.workflow.getHandle(one.body.workflowId, one.body.runId).result();

  const rows = rowsOf(await health('?limit=100'));
  t.is(rows.length, 9, 'one row per link, the deleted one gone');
  t.false(rows.some((r) => r.resourceId === resourceIds['/server-error']));
  const flaky = rows.find((r) => r.url === `${base}/flaky`)!;
  t.like(flaky, { status: 'ok', httpStatus: 200, error: null });
  t.true(Date.parse(flaky.checkedAt) > Date.parse(firstChecked));
  t.like((await stats()).body, { total: 9, ok: 5, broken: 3, timeout: 1 });
});

test.serial('the link-check workflow pages through the links with continue-as-new', async (t) => {
  const workflowId = 'link-check-paged-by-test';
  const counts = await client.workflow.execute('linkCheckWorkflow', {
    taskQueue: app.taskQueue,
    workflowId,
    args: [{ pageSize: 2, pagesPerRun: 1, concurrency: 2, timeoutMs: 1000 }],
  });
  t.deepEqual(counts, { ok: 5, broken: 3, timeout: 1 });
  // Nine links, two per run: runs 1–4 read full pages and continue as new, run 5 reads the last one.
  let continued = 0;
  for await (const info of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    if (info.status.name === 'CONTINUED_AS_NEW') continued++;
  }
  t.is(continued, 4);
  const jobs = await app.api.get('/api/v1/admin/jobs?type=link-check&status=continued_as_new', admin());
  t.is(jobs.body.count, 4);
});

test.serial("a deleted dataset's links drop out of the results, and come back when it is restored", async (t) => {
  t.is((await app.api.delete('/api/v1/packages/health-links', admin())).status, 204);
  t.like((await health()).body, { count: 0, results: [] });
  t.like((await stats()).body, { total: 0, lastCheckedAt: null });
  t.is((await app.api.post('/api/v1/packages/health-links/restore', undefined, admin())).status, 200);
  t.is((await health()).body.count, 9);
  t.like((await stats()).body, { total: 9, ok: 5, broken: 3, timeout: 1 });
});

test.serial('the link-check schedule exists at start-up, runs linkCheckWorkflow daily and skips overlapping runs', async (t) => {
  const schedule = await client.schedule.getHandle(LINK_CHECK_SCHEDULE_ID).describe();
  t.like(schedule.action, { type: 'startWorkflow', workflowType: 'linkCheckWorkflow', workflowId: 'link-check' });
  t.is(schedule.spec.intervals?.[0]?.every, 24 * 3600 * 1000);
  t.is(schedule.policies.overlap, 'SKIP');
});

test.serial('ensuring the schedule is idempotent: many processes at once create it once; a changed setting updates it', async (t) => {
  // Its own schedule id: the shared one is also set by the other test files' apps.
  const scheduleId = `link-check-test-${app.taskQueue}`;
  const opts = { scheduleId, taskQueue: app.taskQueue, intervalMs: 3_600_000, workflowOptions: { timeoutMs: 1000 } };
  try {
    const outcomes = await Promise.all(Array.from({ length: 4 }, () => ensureLinkCheckSchedule(client, opts)));
    t.deepEqual(outcomes.sort(), ['created', 'unchanged', 'unchanged', 'unchanged']);
    t.is(await ensureLinkCheckSchedule(client, opts), 'unchanged');
    t.is(await ensureLinkCheckSchedule(client, { ...opts, intervalMs: 7_200_000 }), 'updated');
    const schedule = await client.schedule.getHandle(scheduleId).describe();
    t.is(schedule.spec.intervals?.[0]?.every, 7_200_000);
    t.like(schedule.action, { workflowType: 'linkCheckWorkflow', taskQueue: app.taskQueue, args: [{ timeoutMs: 1000 }] });
    t.is(await ensureLinkCheckSchedule(client, { ...opts, intervalMs: 7_200_000 }), 'unchanged');
  } finally {
    await client.schedule
      .getHandle(scheduleId)
      .delete()
      .catch(() => {});
  }
});
