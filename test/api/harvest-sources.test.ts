import test from 'ava';
import { execFile } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { ScheduleNotFoundError } from '@temporalio/client';
import { harvestScheduleId } from '../../src/domain/jobs/ids.ts';
import { onlySysadmins } from '../helpers/access.ts';
import { startTestApp, until, type TestApp } from '../helpers/app.ts';
import type { Auth, Reply } from '../helpers/client.ts';
import { startFileServer } from '../helpers/file-server.ts';
import { fieldPaths, isProblem } from '../helpers/problem.ts';

/**
 * /admin/harvest-sources over HTTP: the records, their validation, their Temporal Schedules, and runs
 * of a small DCAT-US data.json served on loopback (held back on request, to catch a run while it goes).
 */

let app: TestApp;
let admin: Auth;
let files: Awaited<ReturnType<typeof startFileServer>>;
let orgId: string;
/** While set, the data.json answers wait for it: the run stays in its first page. */
let gate: Promise<void> | null = null;
let openGate: () => void = () => undefined;

const dataJson = (prefix: string, n: number) => ({
  conformsTo: 'https://project-open-data.cio.gov/v1.1/schema',
  dataset: Array.from({ length: n }, (_, i) => ({
    identifier: `${prefix}-${i}`,
    title: `${prefix} dataset ${i}`,
    description: `Record ${i} of ${prefix}`,
    keyword: ['harvest', prefix],
    modified: '2026-01-01',
    accessLevel: 'public',
    publisher: { name: 'Agency' },
    distribution: [{ downloadURL: `http://127.0.0.1:9/${prefix}-${i}.csv`, mediaType: 'text/csv' }],
  })),
});

/** A CKAN site's package_search: these packages, none modified since any `fq` asks (each ask is kept). */
let ckanPackages = ['one', 'two', 'three'];
const ckanAsks: Array<string | null> = [];
const ckanPackage = (name: string) => ({
  id: `ckan-${name}`,
  name: `ckan-${name}`,
  title: `CKAN ${name}`,
  notes: `The package ${name}`,
  metadata_modified: '2026-01-01T00:00:00.000000',
  tags: [{ name: 'harvest' }],
  resources: [{ url: `http://127.0.0.1:9/${name}.csv`, format: 'CSV' }],
});

/** package_search of a CKAN site holding ckanPackages: the first page whole, nothing for an incremental ask. */
const ckanSearch = (req: IncomingMessage, res: ServerResponse) => {
  const query = new URL(req.url ?? '/', 'http://x').searchParams;
  const fq = query.get('fq');
  if (query.get('start') === '0' && req.url?.startsWith('/ck/')) ckanAsks.push(fq);
  const results = query.get('start') === '0' && !fq ? ckanPackages.map(ckanPackage) : [];
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ success: true, result: { count: results.length, results } }));
};

test.before(async () => {
  files = await startFileServer({
    // Two CKAN sites with the same packages; only the first one's asks are recorded.
    '/ck/api/3/action/package_search': ckanSearch,
    '/ck2/api/3/action/package_search': ckanSearch,
    '/a/data.json': async (_req, res) => {
      if (gate) await gate;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(dataJson('alpha', 3)));
    },
    '/b/data.json': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(dataJson('beta', 2)));
    },
    '/c/data.json': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(dataJson('gamma', 2)));
    },
    '/d/data.json': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(dataJson('delta', 5)));
    },
    '/e/data.json': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(dataJson('epsilon', 2)));
    },
    '/f/data.json': async (_req, res) => {
      await heldF;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(dataJson('phi', 2)));
    },
    '/g/data.json': async (_req, res) => {
      await heldG;
      if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(dataJson('psi', 1)));
    },
    '/down/data.json': (_req, res) => {
      res.writeHead(404).end('gone');
    },
  });
  app = await startTestApp();
  admin = app.sysadmin;
  const org = await app.api.post('/api/v1/organizations', { name: 'harvest-dest', title: 'Harvest destination' }, admin);
  orgId = org.body.id;
});
test.after.always(async () => {
  openGate();
  releaseF();
  releaseG();
  await app?.stop();
  await files?.close();
});

let releaseF: () => void = () => undefined;
const heldF = new Promise<void>((resolve) => (releaseF = resolve));
/** Never answers while the tests run: a run of it is still going when its source is deleted. */
let releaseG: () => void = () => undefined;
const heldG = new Promise<void>((resolve) => (releaseG = resolve));

const create = (body: Record<string, unknown>) => app.api.post('/api/v1/admin/harvest-sources', body, admin);
const source = (id: string) => app.api.get(`/api/v1/admin/harvest-sources/${id}`, admin);
async function finished(id: string): Promise<Reply> {
  let reply!: Reply;
  await until(
    'the run ends',
    async () => {
      reply = await source(id);
      return reply.body?.lastRun && reply.body.lastRun.status !== 'running';
    },
    60_000,
  );
  return reply;
}

test('a sysadmin adds a source: 201 with the record, and it is listed and shown with no run yet', async (t) => {
  const created = await create({ name: 'alpha-list', type: 'dcat-us', url: `${files.url}/a/data.json`, organization: 'harvest-dest' });
  t.is(created.status, 201, created.text);
  t.like(created.body, {
    name: 'alpha-list',
    type: 'dcat-us',
    url: `${files.url}/a/data.json`,
    organization: { id: orgId, name: 'harvest-dest', title: 'Harvest destination' },
    deleteRemoved: false,
    schedule: null,
    lastRun: null,
  });
  const shown = await source(created.body.id);
  t.is(shown.status, 200);
  t.deepEqual(shown.body, created.body);
  const list = await app.api.get('/api/v1/admin/harvest-sources?limit=100', admin);
  t.is(list.status, 200);
  t.true(list.body.results.some((s: { id: string }) => s.id === created.body.id));
  t.is(list.body.count, list.body.results.length);
  const updated = await app.api.put(
    `/api/v1/admin/harvest-sources/${created.body.id}`,
    { deleteRemoved: true, name: 'alpha-list-2' },
    admin,
  );
  t.is(updated.status, 200, updated.text);
  t.like(updated.body, { name: 'alpha-list-2', deleteRemoved: true, type: 'dcat-us', organization: { id: orgId } });
});

test('a dcat-us or dcat-ap source without an organization, a non-http url, a bad schedule are 422 naming the field', async (t) => {
  for (const type of ['dcat-us', 'dcat-ap']) {
    const reply = await create({ name: `no-org-${type}`, type, url: `${files.url}/a/data.json` });
    isProblem(t, reply, 422, 'validation_failed');
    t.deepEqual(fieldPaths(reply), ['organization']);
  }
  const ckan = await create({ name: 'ckan-no-org', type: 'ckan', url: `${files.url}/` });
  t.is(ckan.status, 201, ckan.text);
  t.is(ckan.body.organization, null);

  const ftp = await create({ name: 'ftp', type: 'ckan', url: 'ftp://example.org/' });
  isProblem(t, ftp, 422, 'validation_failed');
  t.deepEqual(fieldPaths(ftp), ['url']);
  for (const schedule of ['hourly', '61 * * * *', '* * * *', '0 2 * * 8']) {
    const reply = await create({ name: 'bad-schedule', type: 'ckan', url: `${files.url}/`, schedule });
    isProblem(t, reply, 422, 'validation_failed');
    t.deepEqual(fieldPaths(reply), ['schedule'], schedule);
  }
  const unknownOrg = await create({ name: 'unknown-org', type: 'dcat-ap', url: `${files.url}/`, organization: 'nowhere' });
  t.deepEqual(fieldPaths(unknownOrg), ['organization']);
  const badType = await create({ name: 'bad-type', type: 'oai-pmh', url: `${files.url}/` });
  isProblem(t, badType, 422, 'validation_failed');
  const put = await app.api.put(`/api/v1/admin/harvest-sources/${ckan.body.id}`, { type: 'dcat-ap' }, admin);
  isProblem(t, put, 422, 'validation_failed');
  t.deepEqual(fieldPaths(put), ['organization']);
});

test('a second source with a taken name is 409', async (t) => {
  t.is((await create({ name: 'twice', type: 'ckan', url: `${files.url}/` })).status, 201);
  const again = await create({ name: 'twice', type: 'ckan', url: `${files.url}/other` });
  isProblem(t, again, 409, 'conflict');
  t.deepEqual(fieldPaths(again), ['name']);
  const other = await create({ name: 'twice-other', type: 'ckan', url: `${files.url}/` });
  const renamed = await app.api.put(`/api/v1/admin/harvest-sources/${other.body.id}`, { name: 'twice' }, admin);
  isProblem(t, renamed, 409, 'conflict');
});

test('harvest sources are for sysadmins only: anonymous is 401, a user 403; an unknown id is 404', async (t) => {
  const user = await app.api.newUser('harvest-outsider');
  const made = await create({ name: 'guarded', type: 'ckan', url: `${files.url}/` });
  const id = made.body.id;
  await onlySysadmins(
    t,
    app.api,
    [
      ['GET', '/api/v1/admin/harvest-sources'],
      ['POST', '/api/v1/admin/harvest-sources', { name: 'x-source', type: 'ckan', url: 'http://example.org/' }],
      ['GET', `/api/v1/admin/harvest-sources/${id}`],
      ['GET', `/api/v1/admin/harvest-sources/${id}/runs`],
      ['PUT', `/api/v1/admin/harvest-sources/${id}`, { deleteRemoved: true }],
      ['DELETE', `/api/v1/admin/harvest-sources/${id}`],
      ['POST', `/api/v1/admin/harvest-sources/${id}/run`],
    ],
    [{ token: user.token }],
  );
  isProblem(t, await source('8d0b2f0e-5f43-4a43-9a53-3f0d6c1b7a10'), 404, 'not_found');
  isProblem(t, await source('not-an-id'), 404, 'not_found');
});

test('a run is 202 with harvest-<id>; a second POST while it goes joins the same run; lastRun counts what it did', async (t) => {
  const made = await create({ name: 'alpha-run', type: 'dcat-us', url: `${files.url}/a/data.json`, organization: orgId });
  const id = made.body.id;
  gate = new Promise((resolve) => (openGate = resolve));
  const first = await app.api.post(`/api/v1/admin/harvest-sources/${id}/run`, undefined, admin);
  t.is(first.status, 202, first.text);
  t.is(first.body.workflowId, `harvest-${id}`);
  t.regex(first.body.uiUrl, new RegExp(`/workflows/harvest-${id}$`));
  const running = await source(id);
  t.like(running.body.lastRun, { workflowId: `harvest-${id}`, runId: first.body.runId, status: 'running', finishedAt: null });
  const second = await app.api.post(`/api/v1/admin/harvest-sources/${id}/run`, undefined, admin);
  t.is(second.status, 202, second.text);
  t.deepEqual(second.body, first.body);
  gate = null;
  openGate();

  const done = await finished(id);
  t.like(done.body.lastRun, {
    runId: first.body.runId,
    status: 'succeeded',
    pages: 1,
    seen: 3,
    created: 3,
    updated: 0,
    unchanged: 0,
    failed: 0,
    removed: 0,
    errors: [],
    reason: null,
  });
  t.truthy(done.body.lastRun.finishedAt);
  const runs = await app.api.get(`/api/v1/admin/harvest-sources/${id}/runs`, admin);
  t.is(runs.status, 200);
  t.is(runs.body.count, 1);
  t.is(runs.body.results[0].runId, first.body.runId);

  // The next run finds everything unchanged, and is listed first.
  const again = await app.api.post(`/api/v1/admin/harvest-sources/${id}/run`, undefined, admin);
  t.not(again.body.runId, first.body.runId);
  const redone = await finished(id);
  t.like(redone.body.lastRun, { runId: again.body.runId, status: 'succeeded', seen: 3, created: 0, unchanged: 3 });
  const both = await app.api.get(`/api/v1/admin/harvest-sources/${id}/runs`, admin);
  t.deepEqual(
    both.body.results.map((r: { runId: string }) => r.runId),
    [again.body.runId, first.body.runId],
  );
});

test('a CKAN source runs incrementally (since its last run, less an hour) until a full run is asked for or its url changes; a full run counts what the source removed', async (t) => {
  const made = await create({ name: 'ckan-full', type: 'ckan', url: `${files.url}/ck`, organization: orgId });
  const id = made.body.id;
  const run = async (body?: Record<string, unknown>) => {
    const started = await app.api.post(`/api/v1/admin/harvest-sources/${id}/run`, body, admin);
    t.is(started.status, 202, started.text);
    const done = await finished(id);
    t.is(done.body.lastRun.runId, started.body.runId);
    return done.body.lastRun;
  };
  const first = await run();
  t.like(first, { status: 'succeeded', since: null, created: 3, removed: 0 });
  t.deepEqual(ckanAsks, [null]);

  const second = await run();
  t.like(second, { status: 'succeeded', seen: 0, removed: 0 });
  t.is(Date.parse(second.since), Date.parse(first.startedAt) - 3600_000);
  t.is(ckanAsks.length, 2);
  t.regex(ckanAsks[1] ?? '', /^metadata_modified:\[\S+Z TO \*\]$/);

  ckanPackages = ['one', 'three'];
  const incremental = await run({});
  t.like(incremental, { status: 'succeeded', seen: 0, removed: 0 });
  t.truthy(incremental.since);
  const full = await run({ full: true });
  t.like(full, { status: 'succeeded', since: null, seen: 2, unchanged: 2, removed: 1 });
  t.is(ckanAsks.at(-1), null);

  // Incremental again, until the source's url changes: then its next run reads everything.
  t.truthy((await run()).since);
  const put = await app.api.put(`/api/v1/admin/harvest-sources/${id}`, { url: `${files.url}/ck/` }, admin);
  t.is(put.status, 200, put.text);
  t.like(await run(), { status: 'succeeded', since: null, seen: 2 });
  t.is((await app.api.post(`/api/v1/admin/harvest-sources/${id}/run`, { full: 'yes' }, admin)).status, 422);
});

test('a source that answers 404 fails the run at once with the reason', async (t) => {
  const made = await create({ name: 'down', type: 'dcat-us', url: `${files.url}/down/data.json`, organization: orgId });
  const run = await app.api.post(`/api/v1/admin/harvest-sources/${made.body.id}/run`, undefined, admin);
  t.is(run.status, 202);
  const done = await finished(made.body.id);
  t.is(done.body.lastRun.status, 'failed');
  t.regex(done.body.lastRun.reason, /404/);
});

test('a schedule becomes the Temporal Schedule harvest-schedule-<id>, changes with the source and goes with it', async (t) => {
  const { client } = app.almanac.services.jobs;
  const made = await create({ name: 'scheduled', type: 'ckan', url: `${files.url}/`, schedule: 'daily' });
  t.is(made.status, 201, made.text);
  t.is(made.body.schedule, 'daily');
  const handle = client.schedule.getHandle(harvestScheduleId(made.body.id));
  const daily = await handle.describe();
  t.like(daily.action, {
    type: 'startWorkflow',
    workflowType: 'harvestWorkflow',
    workflowId: `harvest-${made.body.id}`,
    taskQueue: app.taskQueue,
  });
  t.deepEqual(
    daily.spec.calendars?.map((c) => [c.hour, c.minute, c.dayOfWeek]),
    [[[{ start: 2, end: 2, step: 1 }], [{ start: 0, end: 0, step: 1 }], [{ start: 'SUNDAY', end: 'SATURDAY', step: 1 }]]],
  );

  const weekly = await app.api.put(`/api/v1/admin/harvest-sources/${made.body.id}`, { schedule: '30 4 * * 1' }, admin);
  t.is(weekly.status, 200, weekly.text);
  const cron = await handle.describe();
  t.deepEqual(
    cron.spec.calendars?.map((c) => [c.hour, c.minute, c.dayOfWeek]),
    [[[{ start: 4, end: 4, step: 1 }], [{ start: 30, end: 30, step: 1 }], [{ start: 'MONDAY', end: 'MONDAY', step: 1 }]]],
  );

  const none = await app.api.put(`/api/v1/admin/harvest-sources/${made.body.id}`, { schedule: null }, admin);
  t.is(none.body.schedule, null);
  await t.throwsAsync(handle.describe(), { instanceOf: ScheduleNotFoundError });

  const again = await app.api.put(`/api/v1/admin/harvest-sources/${made.body.id}`, { schedule: 'weekly' }, admin);
  t.is(again.status, 200, again.text);
  t.truthy(await handle.describe());
  t.is((await app.api.delete(`/api/v1/admin/harvest-sources/${made.body.id}`, admin)).status, 204);
  await t.throwsAsync(handle.describe(), { instanceOf: ScheduleNotFoundError });
});

async function harvested(name: string, prefix: string) {
  const made = await create({ name, type: 'dcat-us', url: `${files.url}/b/data.json`, organization: orgId });
  await app.api.post(`/api/v1/admin/harvest-sources/${made.body.id}/run`, undefined, admin);
  const done = await finished(made.body.id);
  if (done.body.lastRun.created !== 2) throw new Error(`the run of ${name} did not create 2 datasets: ${done.text}`);
  const list = await app.api.get(`/api/v1/packages?q=${prefix}&limit=100`, admin);
  return { id: made.body.id as string, datasets: list.body.results.map((d: { id: string }) => d.id) as string[] };
}

test('deleting a source leaves its datasets, detached; with purge=true they are purged with it', async (t) => {
  const kept = await harvested('beta-kept', 'beta');
  t.is(kept.datasets.length, 2);
  t.is((await app.api.delete(`/api/v1/admin/harvest-sources/${kept.id}`, admin)).status, 204);
  isProblem(t, await source(kept.id), 404, 'not_found');
  for (const id of kept.datasets) {
    const dataset = await app.api.get(`/api/v1/packages/${id}`, admin);
    t.is(dataset.status, 200);
    t.is(dataset.body.state, 'active');
  }

  // The same records again, from a new source: new datasets beside the detached ones.
  const purged = await harvested('beta-purged', 'beta');
  const fresh = purged.datasets.filter((id) => !kept.datasets.includes(id));
  t.is(fresh.length, 2);
  t.is((await app.api.delete(`/api/v1/admin/harvest-sources/${purged.id}?purge=true`, admin)).status, 204);
  for (const id of fresh) isProblem(t, await app.api.get(`/api/v1/packages/${id}`, admin), 404, 'not_found');
  for (const id of kept.datasets) t.is((await app.api.get(`/api/v1/packages/${id}`, admin)).status, 200);
});

/** `almanac harvest …` as an operator runs it, on the test app's database and Temporal task queue. */
function almanacHarvest(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { config } = app.almanac.services;
  const bin = fileURLToPath(new URL('../../bin/almanac', import.meta.url));
  return new Promise((resolve) => {
    execFile(
      bin,
      ['harvest', ...args],
      {
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: config.database.mode === 'external' ? config.database.url : '',
          TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
          TEMPORAL_TASK_QUEUE: app.taskQueue,
          ALMANAC_DATA_DIR: config.dataDir,
          EMBEDDINGS_PROVIDER: 'none',
          LOG_LEVEL: 'warn',
        },
        timeout: 120_000,
      },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

test('almanac harvest creates the source, runs it, prints the counts, the summary and the Temporal UI link; again it reuses the source', async (t) => {
  const url = `${files.url}/c/data.json`;
  const first = await almanacHarvest([url, '--type', 'dcat-us', '--org', 'harvest-dest', '--name', 'cli-beta']);
  t.is(first.code, 0, first.stderr + first.stdout);
  t.regex(first.stdout, /created harvest source cli-beta/);
  t.regex(first.stdout, /harvest succeeded/);
  t.regex(first.stdout, /seen 2 · created 2 · updated 0 · unchanged 0 · failed 0/);
  const list = await app.api.get('/api/v1/admin/harvest-sources?limit=100', admin);
  const made = list.body.results.find((s: { name: string }) => s.name === 'cli-beta');
  t.like(made, { type: 'dcat-us', url, organization: { name: 'harvest-dest' }, lastRun: { status: 'succeeded', created: 2 } });
  t.true(first.stdout.includes(`/workflows/harvest-${made.id}/${made.lastRun.runId}/history`));

  const again = await almanacHarvest([url, '--type', 'dcat-us']);
  t.is(again.code, 0, again.stderr + again.stdout);
  t.regex(again.stdout, /reusing harvest source cli-beta/);
  t.regex(again.stdout, /created 0 · updated 0 · unchanged 2/);
});

test('almanac harvest exits 1 with the reason when the run fails, and 2 on a bad --type', async (t) => {
  const failed = await almanacHarvest([`${files.url}/down/data.json`, '--type', 'dcat-us', '--org', 'harvest-dest', '--name', 'cli-down']);
  t.is(failed.code, 1, failed.stderr + failed.stdout);
  t.regex(failed.stdout, /harvest FAILED/);
  t.regex(failed.stdout, /reason: .*404/);
  const usage = await almanacHarvest([`${files.url}/x`, '--type', 'oai']);
  t.is(usage.code, 2);
  t.regex(usage.stderr, /--type must be one of ckan, dcat-us, dcat-ap/);
});

test('a long source continues as new every few pages: one run, one row, every record once', async (t) => {
  const made = await create({ name: 'delta-long', type: 'dcat-us', url: `${files.url}/d/data.json`, organization: orgId });
  const { client } = app.almanac.services.jobs;
  // A page per record and two pages per workflow run: three runs in the chain.
  const handle = await client.workflow.start('harvestWorkflow', {
    workflowId: `harvest-${made.body.id}`,
    taskQueue: app.taskQueue,
    args: [{ sourceId: made.body.id, pageSize: 1, pagesPerRun: 2 }],
  });
  t.like(await handle.result(), { status: 'succeeded', pages: 5 });
  const chain: string[] = [];
  for await (const run of client.workflow.list({ query: `WorkflowId = 'harvest-${made.body.id}'` })) chain.push(run.status.name);
  t.is(chain.filter((s) => s === 'CONTINUED_AS_NEW').length, 2);
  const done = await finished(made.body.id);
  t.like(done.body.lastRun, { runId: handle.firstExecutionRunId, status: 'succeeded', pages: 5, seen: 5, created: 5 });
  const runs = await app.api.get(`/api/v1/admin/harvest-sources/${made.body.id}/runs`, admin);
  t.is(runs.body.count, 1);
});

test('the schedule runs the harvest: a triggered schedule starts harvest-<id>-<time>, seen in lastRun', async (t) => {
  const made = await create({
    name: 'epsilon-scheduled',
    type: 'dcat-us',
    url: `${files.url}/e/data.json`,
    organization: orgId,
    schedule: 'weekly',
  });
  t.is(made.status, 201, made.text);
  await app.almanac.services.jobs.client.schedule.getHandle(harvestScheduleId(made.body.id)).trigger();
  const done = await finished(made.body.id);
  t.like(done.body.lastRun, { status: 'succeeded', created: 2 });
  t.true(done.body.lastRun.workflowId.startsWith(`harvest-${made.body.id}-`), done.body.lastRun.workflowId);
});

test('a scheduled run that finds a run of its source going skips at once, with no row; the run going goes on alone', async (t) => {
  const made = await create({
    name: 'phi-scheduled',
    type: 'dcat-us',
    url: `${files.url}/f/data.json`,
    organization: orgId,
    schedule: 'weekly',
  });
  const id = made.body.id;
  const manual = await app.api.post(`/api/v1/admin/harvest-sources/${id}/run`, undefined, admin);
  t.is(manual.status, 202, manual.text);
  const client = app.almanac.services.jobs.client;
  await client.schedule.getHandle(harvestScheduleId(id)).trigger();
  let scheduled: string | undefined;
  await until(
    'the scheduled run ends',
    async () => {
      for await (const info of client.workflow.list({ query: `WorkflowId STARTS_WITH 'harvest-${id}-'` })) {
        if (info.status.name !== 'RUNNING') scheduled = info.workflowId;
      }
      return scheduled !== undefined;
    },
    60_000,
  );
  t.like(await client.workflow.getHandle(scheduled!).result(), { status: 'skipped', pages: 0 });
  releaseF();
  const done = await finished(id);
  t.like(done.body.lastRun, { runId: manual.body.runId, status: 'succeeded', created: 2 });
  t.is((await app.api.get(`/api/v1/admin/harvest-sources/${id}/runs`, admin)).body.count, 1);
});

test('deleting a source while it runs terminates the run first, so nothing lands after', async (t) => {
  const made = await create({ name: 'psi-deleted', type: 'dcat-us', url: `${files.url}/g/data.json`, organization: orgId });
  const id = made.body.id;
  const started = await app.api.post(`/api/v1/admin/harvest-sources/${id}/run`, undefined, admin);
  t.is(started.status, 202, started.text);
  const deleted = await app.api.delete(`/api/v1/admin/harvest-sources/${id}?purge=true`, admin);
  t.is(deleted.status, 204, deleted.text);
  const described = await app.almanac.services.jobs.client.workflow.getHandle(started.body.workflowId).describe();
  t.is(described.status.name, 'TERMINATED');
});

test('almanac harvest --full follows its own run, and exits 1 saying so when Temporal no longer runs it', async (t) => {
  const url = `${files.url}/g/data.json?cli=1`;
  const cli = almanacHarvest([url, '--type', 'dcat-us', '--org', 'harvest-dest', '--name', 'cli-terminated', '--full']);
  let workflowId = '';
  await until(
    'the CLI run begins',
    async () => {
      const list = await app.api.get('/api/v1/admin/harvest-sources?limit=100', admin);
      const made = list.body.results.find((s: { name: string }) => s.name === 'cli-terminated');
      workflowId = made?.lastRun?.status === 'running' ? made.lastRun.workflowId : '';
      return workflowId !== '';
    },
    30_000,
  );
  await app.almanac.services.jobs.client.workflow.getHandle(workflowId).terminate('test');
  const ended = await cli;
  t.is(ended.code, 1, ended.stderr + ended.stdout);
  t.regex(ended.stdout, /is no longer running in Temporal and did not finish/);
});

test('a CKAN source whose last full run is over 7 days old runs in full again', async (t) => {
  const made = await create({ name: 'ckan-weekly-full', type: 'ckan', url: `${files.url}/ck2`, organization: orgId });
  const id = made.body.id;
  const run = async () => {
    const started = await app.api.post(`/api/v1/admin/harvest-sources/${id}/run`, undefined, admin);
    t.is(started.status, 202, started.text);
    const done = await finished(id);
    t.is(done.body.lastRun.runId, started.body.runId);
    return done.body.lastRun;
  };
  t.like(await run(), { status: 'succeeded', since: null });
  t.truthy((await run()).since);
  await app.almanac.services.orm.em
    .fork()
    .getConnection()
    .execute(`update harvest_runs set started_at = started_at - interval '8 days' where source_id = ? and since is null`, [id]);
  t.like(await run(), { status: 'succeeded', since: null });
});
