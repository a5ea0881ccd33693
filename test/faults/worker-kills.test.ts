import test from 'ava';
import { purgeOrgWorkflowId, REINDEX_WORKFLOW_ID } from '../../src/domain/jobs/ids.ts';
import { startTestApp, until, type TestApp } from '../helpers/app.ts';
import { uploadAndProcess } from '../helpers/pipeline.ts';
import { startWorkerFor, stopProcess } from '../helpers/worker.ts';

/**
 * Fault injection, the worker's side (issue 16): a worker killed with SIGKILL in the middle of an
 * organization purge and of a reindex; a second worker finishes each job, which completes exactly once
 * (one chain of runs, nothing done twice, nothing left behind). The pipeline's case is
 * test/runtime/pipeline-crash.test.ts. The API runs no worker here: the jobs wait for the ones we start.
 */

let app: TestApp;
test.before(async () => {
  app = await startTestApp({ RUN_WORKER: 'false' });
});
test.after.always(async () => app?.stop());

const startWorker = () => startWorkerFor(app, { EMBEDDINGS_PROVIDER: 'none' });
const stopped = stopProcess;

/** Starts a worker, kills it (SIGKILL) once the job's first activity has started, then lets a second one finish the job. */
async function killMidJob(workflowId: string) {
  const { client } = app.almanac.services.jobs;
  const first = startWorker();
  try {
    await until(
      `an activity of ${workflowId} to start`,
      async () => {
        const history = await client.workflow.getHandle(workflowId).fetchHistory();
        return (history.events ?? []).some((e) => e.activityTaskStartedEventAttributes);
      },
      60_000,
    );
  } finally {
    await stopped(first, 'SIGKILL');
  }
  const second = startWorker();
  try {
    // A step cut short is retried once its start-to-close timeout (1 minute) has passed.
    return await client.workflow.getHandle(workflowId).result();
  } finally {
    await stopped(second, 'SIGTERM');
  }
}

/** Every run of a workflow id: a job continued as new is one chain, each run of it closed once. */
async function runsOf(workflowId: string) {
  const runs: string[] = [];
  for await (const run of app.almanac.services.jobs.client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
    runs.push(run.status.name);
  return runs;
}

test.serial('a worker killed mid-purge of an organization: the next one finishes it, once, and leaves no dataset or file', async (t) => {
  t.timeout(5 * 60_000);
  const auth = { token: app.adminToken };
  const org = await app.api.post('/api/v1/organizations', { name: 'killed-purge' }, auth);
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) {
    // Drafts: no search sync waits for a worker while the test sets up.
    const draft = await app.api.post('/api/v1/packages/drafts', { name: `killed-purge-${i}`, ownerOrg: 'killed-purge' }, auth);
    t.is(draft.status, 201, draft.text);
    ids.push(draft.body.id);
  }
  const resource = await app.api.post(`/api/v1/packages/${ids[0]}/resources`, { urlType: 'upload', name: 'a.csv' }, auth);
  const upload = await fetch(`${app.url}/api/v1/resources/${resource.body.id}/upload`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${app.adminToken}`, 'Content-Type': 'text/csv' },
    body: 'a,b\n1,2\n',
  });
  t.is(upload.status, 200);

  t.is((await app.api.delete(`/api/v1/organizations/${org.body.id}`, auth)).status, 204);
  const purge = await app.api.post(`/api/v1/organizations/${org.body.id}/purge`, undefined, auth);
  t.is(purge.status, 202, purge.text);
  const result = await killMidJob(purgeOrgWorkflowId(org.body.id));
  t.like(result, { removed: true });

  t.true((await runsOf(purgeOrgWorkflowId(org.body.id))).every((status) => status === 'COMPLETED' || status === 'CONTINUED_AS_NEW'));
  t.is((await app.api.get(`/api/v1/organizations/${org.body.id}`, auth)).status, 404);
  for (const id of ids) t.is((await app.api.get(`/api/v1/packages/${id}`, auth)).status, 404, id);
  const left: string[] = [];
  for await (const object of app.almanac.services.storage.list(`resources/${resource.body.id}/`)) left.push(object.key);
  t.deepEqual(left, [], 'no file outlives its record');
});

test.serial('a worker killed mid-reindex: the next one finishes it once, and search finds every dataset', async (t) => {
  t.timeout(5 * 60_000);
  const auth = { token: app.adminToken };
  await app.api.post('/api/v1/organizations', { name: 'killed-reindex' }, auth);
  // Published datasets wait for their search sync, so this part needs a worker.
  const helper = startWorker();
  const names: string[] = [];
  try {
    for (let i = 0; i < 6; i++) {
      const name = `reindexed-heron-${i}`;
      const made = await app.api.post(
        '/api/v1/packages',
        {
          name,
          title: `Heron counts ${i}`,
          ownerOrg: 'killed-reindex',
          licenseId: 'cc-by-4.0',
          resources: [{ urlType: 'upload', name: 'c.csv' }],
        },
        auth,
      );
      t.is(made.status, 201, made.text);
      names.push(name);
      if (i === 0) await uploadAndProcess(app.api, made.body.resources[0].id, 'bird,count\nheron,3\n', auth);
    }
  } finally {
    await stopped(helper, 'SIGTERM');
  }
  // The index loses its keyword documents, as after a botched restore; the reindex must bring them back.
  await app.almanac.services.orm.em.fork().execute(`update datasets set search_vector = null where name like 'reindexed-heron-%'`);

  const started = await app.api.post('/api/v1/admin/reindex-metadata', undefined, auth);
  t.is(started.status, 202, started.text);
  await killMidJob(REINDEX_WORKFLOW_ID);
  t.true((await runsOf(REINDEX_WORKFLOW_ID)).every((status) => status === 'COMPLETED' || status === 'CONTINUED_AS_NEW'));
  const found = await app.api.get('/api/v1/packages?q=heron&semantic=false&limit=20', auth);
  t.deepEqual(found.body.results.map((d: { name: string }) => d.name).sort(), names.sort());
});

test.serial(
  'a worker killed mid-deletion of a draft: the DELETE answers 204 or 503 deletion_incomplete, and the same DELETE finishes it with another worker',
  async (t) => {
    t.timeout(5 * 60_000);
    const auth = { token: app.adminToken };
    await app.api.post('/api/v1/organizations', { name: 'killed-draft' }, auth);
    const draft = await app.api.post('/api/v1/packages/drafts', { name: 'killed-draft-data', ownerOrg: 'killed-draft' }, auth);
    const resource = await app.api.post(`/api/v1/packages/${draft.body.id}/resources`, { urlType: 'upload', name: 'a.csv' }, auth);
    const upload = await fetch(`${app.url}/api/v1/resources/${resource.body.id}/upload`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${app.adminToken}`, 'Content-Type': 'text/csv' },
      body: 'a,b\n1,2\n',
    });
    t.is(upload.status, 200);

    // The DELETE waits for its workflow; the worker dies under it once a step has started.
    const first = startWorker();
    const deletion = app.api.delete(`/api/v1/packages/${draft.body.id}`, auth);
    try {
      await until(
        'a step of the draft deletion to start',
        async () => {
          // Not there until the DELETE has started it.
          const handle = app.almanac.services.jobs.client.workflow.getHandle(`delete-draft-${draft.body.id}`);
          const history = await handle.fetchHistory().catch(() => null);
          return (history?.events ?? []).some((e) => e.activityTaskStartedEventAttributes);
        },
        60_000,
      );
    } finally {
      await stopped(first, 'SIGKILL');
    }
    const answered = await deletion;
    t.true(answered.status === 204 || (answered.status === 503 && answered.body?.code === 'deletion_incomplete'), answered.text);

    const second = startWorker();
    try {
      await until('the draft to be gone', async () => {
        const again = await app.api.delete(`/api/v1/packages/${draft.body.id}`, auth);
        return again.status === 204 || again.status === 404;
      });
    } finally {
      await stopped(second, 'SIGTERM');
    }
    t.is((await app.api.get(`/api/v1/packages/${draft.body.id}`, auth)).status, 404);
    const left: string[] = [];
    for await (const object of app.almanac.services.storage.list(`resources/${resource.body.id}/`)) left.push(object.key);
    t.deepEqual(left, [], 'no file outlives its record');
  },
);
