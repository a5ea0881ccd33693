import test from 'ava';
import { harvestWorkflowId } from '../../src/domain/jobs/ids.ts';
import { startTestApp, until, type TestApp } from '../helpers/app.ts';
import { startFileServer } from '../helpers/file-server.ts';
import { startWorkerFor, stopProcess } from '../helpers/worker.ts';

/**
 * Fault injection (issue 18): a worker killed with SIGKILL in the middle of a harvest, while it applies
 * a page's records; a second worker reads the page again and finishes the run, which counts and creates
 * every record exactly once. The API runs no worker here: the run waits for the ones we start.
 */

const RECORDS = 40;
let app: TestApp;
let files: Awaited<ReturnType<typeof startFileServer>>;

test.before(async () => {
  const dataJson = JSON.stringify({
    dataset: Array.from({ length: RECORDS }, (_, i) => ({
      identifier: `kill-${i}`,
      title: `Killed harvest record ${i}`,
      keyword: ['kill'],
      accessLevel: 'public',
      distribution: [{ downloadURL: `https://data.example.org/kill-${i}.csv`, mediaType: 'text/csv' }],
    })),
  });
  files = await startFileServer({
    '/data.json': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(dataJson);
    },
  });
  app = await startTestApp({ RUN_WORKER: 'false' });
});
test.after.always(async () => {
  await app?.stop();
  await files?.close();
});

const startWorker = () => startWorkerFor(app, { EMBEDDINGS_PROVIDER: 'none' });

test('a worker killed mid-harvest: the next one finishes the run, with every record created once', async (t) => {
  t.timeout(5 * 60_000);
  const auth = app.sysadmin;
  t.is((await app.api.post('/api/v1/organizations', { name: 'killed-harvest' }, auth)).status, 201);
  const made = await app.api.post(
    '/api/v1/admin/harvest-sources',
    { name: 'killed-harvest', type: 'dcat-us', url: `${files.url}/data.json`, organization: 'killed-harvest' },
    auth,
  );
  t.is(made.status, 201, made.text);
  const id: string = made.body.id;
  const { client } = app.almanac.services.jobs;
  // Pages of 8 records, as the run endpoint would start it but with a small page.
  const handle = await client.workflow.start('harvestWorkflow', {
    workflowId: harvestWorkflowId(id),
    taskQueue: app.taskQueue,
    args: [{ sourceId: id, pageSize: 8 }],
  });
  const em = () => app.almanac.services.orm.em.fork();
  const recorded = async () => {
    const [row] = await em().execute<{ n: number }[]>(
      `select count(*)::int as n from harvest_run_records r join harvest_runs h on h.id = r.run_id where h.source_id = ?`,
      [id],
    );
    return row!.n;
  };

  const first = startWorker();
  try {
    // Killed in the middle of a page: some of its records applied, not all.
    await until('a dozen records applied', async () => (await recorded()) >= 12, 120_000);
  } finally {
    await stopProcess(first, 'SIGKILL');
  }
  const before = await recorded();
  t.true(before < RECORDS, `${before} records were applied before the kill`);

  const second = startWorker();
  try {
    t.like(await handle.result(), { status: 'succeeded' });
  } finally {
    await stopProcess(second, 'SIGTERM');
  }

  const shown = await app.api.get(`/api/v1/admin/harvest-sources/${id}`, auth);
  t.like(shown.body.lastRun, {
    runId: handle.firstExecutionRunId,
    status: 'succeeded',
    seen: RECORDS,
    created: RECORDS,
    updated: 0,
    unchanged: 0,
    failed: 0,
    pages: RECORDS / 8,
  });
  const runs = await app.api.get(`/api/v1/admin/harvest-sources/${id}/runs`, auth);
  t.is(runs.body.count, 1);
  const datasets = await em().execute<{ remote: string; n: number }[]>(
    `select harvest_remote_id as remote, count(*)::int as n from datasets where harvest_source_id = ? group by 1`,
    [id],
  );
  t.is(datasets.length, RECORDS);
  t.true(datasets.every((d) => d.n === 1));
  const list = await app.api.get('/api/v1/packages?organization=killed-harvest&limit=100', auth);
  t.is(list.body.count, RECORDS);
});
