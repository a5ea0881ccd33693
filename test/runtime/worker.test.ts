import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { purgeOrgWorkflowId } from '../../src/domain/jobs/ids.ts';
import { startTestApp, until, type TestApp } from '../helpers/app.ts';

const BIN = fileURLToPath(new URL('../../bin/almanac', import.meta.url));

let app: TestApp;
test.before(async () => {
  // The production shape: the API starts workflows, and only `almanac worker` runs them.
  app = await startTestApp({ RUN_WORKER: 'false' });
});
test.after.always(async () => app?.stop());

test('`almanac worker` alone runs the jobs the API starts, and stops cleanly on SIGTERM', async (t) => {
  const { config } = app.almanac.services;
  const auth = { token: app.adminToken };
  const org = await app.api.post('/api/v1/organizations', { name: 'worker-org' }, auth);
  await app.api.delete('/api/v1/organizations/worker-org', auth);
  const purge = await app.api.post(`/api/v1/organizations/${org.body.id}/purge`, undefined, auth);
  t.is(purge.status, 202);

  // No worker polls this queue yet: the purge's first workflow task waits, scheduled and never started.
  const purgeRun = app.almanac.services.jobs.client.workflow.getHandle(purgeOrgWorkflowId(org.body.id));
  await until(
    'the purge waiting for a worker',
    async () => (await purgeRun.describe()).raw.pendingWorkflowTask?.state === 1 /* SCHEDULED */,
  );
  t.is((await app.api.get(`/api/v1/organizations/${org.body.id}`, auth)).status, 200, 'nothing runs the job yet');

  const worker = spawn(BIN, ['worker'], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: config.database.mode === 'external' ? config.database.url : '',
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: app.taskQueue,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  worker.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 60_000;
    let status = 200;
    while (status !== 404 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      status = (await app.api.get(`/api/v1/organizations/${org.body.id}`, auth)).status;
    }
    t.is(status, 404, `the worker purged the organization\n${stderr}`);
  } finally {
    worker.kill('SIGTERM');
  }
  t.is(await exited, 0, stderr);
});
