import test from 'ava';
import { pipelineWorkflowId } from '../../src/domain/jobs/ids.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startWorkerFor } from '../helpers/worker.ts';

/**
 * A worker killed (SIGKILL) in the middle of a pipeline step: another worker picks the step up once its
 * heartbeat stops, and the pipeline completes exactly once, in one workflow run, with one preview and
 * one data version.
 */

// About 70 MB: past the 50 MB preview limit, so the preview step has real work when the kill lands.
const ROWS = 3_000_000;

let app: TestApp;
test.before(async () => {
  app = await startTestApp({ RUN_WORKER: 'false' });
});
test.after.always(async () => app?.stop());

const startWorker = () => startWorkerFor(app);

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('a worker killed mid-pipeline: the next worker completes the pipeline exactly once', async (t) => {
  // A retry waits for the dead worker's heartbeat timeout (30 s) on top of two worker start-ups.
  t.timeout(5 * 60_000);
  const auth = { token: app.adminToken };
  await app.api.post('/api/v1/organizations', { name: 'crash-org' }, auth);
  // A draft: no worker runs while the test sets up, and only an active dataset waits for a search sync.
  const draft = await app.api.post('/api/v1/packages/drafts', { name: 'crash-data', ownerOrg: 'crash-org' }, auth);
  t.is(draft.status, 201, draft.text);
  const created = await app.api.post(`/api/v1/packages/${draft.body.id}/resources`, { urlType: 'upload', name: 'big.csv' }, auth);
  t.is(created.status, 201, created.text);
  const id: string = created.body.id;

  // Large enough that building its preview takes a while; its head is cut at PREVIEW_MAX_BYTES.
  const lines = ['id,label,value'];
  for (let i = 0; i < ROWS; i++) lines.push(`${i},row ${i % 97},${(i * 0.5).toFixed(1)}`);
  const body = Buffer.from(lines.join('\n') + '\n');
  const send = () =>
    fetch(`${app.url}/api/v1/resources/${id}/upload`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${app.adminToken}`, 'Content-Type': 'text/csv' },
      body,
    });
  // The upload is set-up here, not what is tested: one retry when the connection drops under a loaded
  // suite (the cause is logged so it can be chased).
  const upload = await send().catch((err: Error & { cause?: unknown }) => {
    t.log(`upload retried after: ${err.message} (${String(err.cause)})`);
    return send();
  });
  t.is(upload.status, 200, await upload.text());

  const status = async () => (await app.api.get(`/api/v1/resources/${id}/pipeline-status`, auth)).body;
  const first = startWorker();
  try {
    await waitFor(
      'the preview step to start',
      async () => ((await status()).steps?.find((s: { name: string }) => s.name === 'preview')?.status === 'running' ? true : undefined),
      60_000,
    ).catch(async (err) => {
      throw new Error(`${err.message}: ${JSON.stringify(await status())}`);
    });
  } finally {
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
  }
  t.is((await status()).status, 'running', 'the run outlives its worker');

  const second = startWorker();
  try {
    const final = await waitFor(
      'the pipeline to finish',
      async () => {
        const s = await status();
        return s.status === 'succeeded' || s.status === 'failed' ? s : undefined;
      },
      120_000,
    );
    t.is(final.status, 'succeeded', JSON.stringify(final));
    t.deepEqual(
      final.steps.map((s: { status: string }) => s.status),
      ['succeeded', 'succeeded', 'succeeded', 'succeeded'],
    );
  } finally {
    second.kill('SIGTERM');
    await new Promise((r) => second.once('exit', r));
  }

  // Exactly once: one run of the workflow, the preview step attempted twice (the kill), one preview.
  const client = app.almanac.services.jobs.client;
  // The status says succeeded once the last activity recorded it; the run completes a workflow task later.
  await client.workflow.getHandle(pipelineWorkflowId(id)).result();
  const runs = [];
  for await (const run of client.workflow.list({ query: `WorkflowId = '${pipelineWorkflowId(id)}'` })) runs.push(run);
  t.is(runs.length, 1, 'one workflow run');
  t.is(runs[0]!.status.name, 'COMPLETED');
  const history = await client.workflow.getHandle(pipelineWorkflowId(id)).fetchHistory();
  const attempts = (history.events ?? []).filter(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'pipelinePreview',
  ).length;
  t.is(attempts, 1, 'the preview step was scheduled once (and retried within that schedule)');
  const started = (history.events ?? [])
    .filter((e) => e.activityTaskStartedEventAttributes)
    .map((e) => e.activityTaskStartedEventAttributes!.attempt ?? 1);
  t.true(
    started.some((a) => a >= 2),
    'a step ran a second attempt after the kill',
  );

  const schema = (await app.api.get(`/api/v1/resources/${id}/schema`, auth)).body;
  t.true(schema.queryable);
  t.true(schema.schema.rowCount > 0 && schema.schema.rowCount < ROWS, 'the preview holds the head of the file, once');
  t.true(schema.schema.previewTruncated);
  // The retried step wrote the run's one preview key again: one preview object, the one the record serves.
  const previews: string[] = [];
  for await (const object of app.almanac.services.storage.list(`resources/${id}/previews/`)) previews.push(object.key);
  const served = (await app.api.get(`/api/v1/resources/${id}`, auth)).body.extras.preview.key;
  t.deepEqual(previews, [served], 'one preview object');
  // The version is written in the transaction that serves the preview: the killed attempt left none, the retry one.
  const versions = (await app.api.get(`/api/v1/resources/${id}/versions`, auth)).body;
  t.is(versions.count, 1, JSON.stringify(versions));
  t.like(versions.results[0], { version: 1, current: true, rowCount: schema.schema.rowCount });
});
