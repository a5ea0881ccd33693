import test from 'ava';
import { WorkflowFailedError } from '@temporalio/client';
import { harvestWorkflowId } from '../../src/domain/jobs/ids.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startFileServer } from '../helpers/file-server.ts';

/**
 * A source that goes down in the middle of a harvest (issue 18): a CKAN site whose first page answers and
 * whose second answers 503 every time. The page is retried with backoff (5 attempts), then the run fails
 * with a reason that says so, and the records of the first page stay.
 */

let app: TestApp;
let files: Awaited<ReturnType<typeof startFileServer>>;
const secondPageAsks: number[] = [];

const dict = (i: number) => ({
  id: `00000000-0000-4000-8000-00000000000${i}`,
  name: `outage-${i}`,
  title: `Outage record ${i}`,
  notes: null,
  tags: [{ name: 'outage' }],
  resources: [{ url: `https://data.example.org/outage-${i}.csv`, format: 'CSV' }],
  organization: null,
  groups: [],
  license_id: 'cc-by',
  private: false,
  state: 'active',
});

test.before(async () => {
  files = await startFileServer({
    '/api/3/action/package_search': (req, res) => {
      const start = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('start') ?? 0);
      if (start === 0) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: true, result: { count: 4, results: [dict(1), dict(2)] } }));
        return;
      }
      secondPageAsks.push(Date.now());
      res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance');
    },
  });
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.stop();
  await files?.close();
});

test('a source answering 503 is retried with backoff, then the run fails saying so, and the records already brought stay', async (t) => {
  t.timeout(3 * 60_000);
  const auth = app.sysadmin;
  t.is((await app.api.post('/api/v1/organizations', { name: 'outage-catchall' }, auth)).status, 201);
  const made = await app.api.post(
    '/api/v1/admin/harvest-sources',
    { name: 'outage', type: 'ckan', url: files.url, organization: 'outage-catchall' },
    auth,
  );
  t.is(made.status, 201, made.text);
  const id: string = made.body.id;
  // Pages of two, as the run endpoint would start it but with a small page.
  const handle = await app.almanac.services.jobs.client.workflow.start('harvestWorkflow', {
    workflowId: harvestWorkflowId(id),
    taskQueue: app.taskQueue,
    args: [{ sourceId: id, pageSize: 2 }],
  });
  const failure = await t.throwsAsync<WorkflowFailedError>(handle.result(), { instanceOf: WorkflowFailedError });
  t.regex(String(failure?.cause?.message), /could not be reached.*503/);

  t.is(secondPageAsks.length, 5, 'five attempts at the second page');
  const waits = secondPageAsks.slice(1).map((at, i) => at - secondPageAsks[i]!);
  t.true(
    waits.every((w, i) => i === 0 || w > waits[i - 1]!),
    `the waits grow: ${waits.join(', ')} ms`,
  );

  const shown = await app.api.get(`/api/v1/admin/harvest-sources/${id}`, auth);
  t.like(shown.body.lastRun, { status: 'failed', pages: 1, created: 2, seen: 2 });
  t.regex(shown.body.lastRun.reason, /could not be reached \(5 attempts with backoff\).*503/);
  t.truthy(shown.body.lastRun.finishedAt);
  for (const name of ['outage-1', 'outage-2']) {
    const dataset = await app.api.get(`/api/v1/packages/${name}`, auth);
    t.is(dataset.status, 200, name);
    t.is(dataset.body.state, 'active');
  }
});
