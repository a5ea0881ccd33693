import { ApplicationFailure } from '@temporalio/activity';
import test from 'ava';
import { createActivities, type Activities } from '../../activities/index.ts';
import { startWorker, type RunningWorker } from '../../src/temporal/worker.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { isProblem } from '../helpers/problem.ts';

/**
 * Spec §3: a draft deletion that fails partway leaves the row listed as deletion-incomplete, and the same
 * DELETE completes it. The app runs without its own worker; this file's worker serves the app's task
 * queue with a `deleteDraftResources` that fails (for good, no retries) the first time only.
 */

let app: TestApp;
let worker: RunningWorker;
const calls: string[] = [];

test.before(async () => {
  app = await startTestApp({ RUN_WORKER: 'false' });
  const { orm, log, config, storage, search } = app.almanac.services;
  const real = createActivities({ orm, storage, config, search });
  const failingOnce: Activities = {
    ...real,
    async deleteDraftResources(datasetId) {
      calls.push(datasetId);
      if (calls.length === 1) throw ApplicationFailure.nonRetryable('object store unreachable (simulated)');
      return real.deleteDraftResources(datasetId);
    },
  };
  worker = await startWorker({
    address: process.env.TEST_TEMPORAL_ADDRESS!,
    namespace: config.temporal.namespace,
    taskQueue: app.taskQueue,
    log,
    activities: failingOnce,
  });
});
test.after.always(async () => {
  await worker?.stop();
  await app?.stop();
});

const PKG = '/api/v1/packages';

test.serial('a draft deletion that fails partway stays listed as incomplete; the same DELETE completes it', async (t) => {
  const creator = await app.api.newUser('draft-deleter');
  const auth = { token: creator.token };
  const created = await app.api.post(`${PKG}/drafts`, { name: 'half-deleted', title: 'Half' }, auth);
  t.is(created.status, 201, created.text);
  const draft = created.body;
  t.false(draft.deletionIncomplete);
  const resource = await app.api.post(`${PKG}/${draft.id}/resources`, { name: 'r', url: 'https://example.org/r.csv' }, auth);
  t.is(resource.status, 201, resource.text);

  const failed = await app.api.delete(`${PKG}/${draft.id}`, auth);
  isProblem(t, failed, 503, 'deletion_incomplete');
  t.deepEqual(calls, [draft.id], 'the failing step ran once and was not retried');

  // The row stays, flagged, with its resources, and is still its creator's to see (and nobody else's).
  const left = await app.api.get(`${PKG}/${draft.id}?state=draft`, auth);
  t.is(left.status, 200, left.text);
  t.like(left.body, { id: draft.id, name: 'half-deleted', state: 'draft', deletionIncomplete: true });
  t.is(left.body.resources.length, 1);
  const stranger = await app.api.newUser('draft-stranger');
  isProblem(t, await app.api.get(`${PKG}/${draft.id}?state=draft`, { token: stranger.token }), 404, 'not_found');
  isProblem(t, await app.api.get(`${PKG}/${draft.id}`, auth), 404, 'not_found');

  // The same DELETE runs the workflow again and finishes.
  const again = await app.api.delete(`${PKG}/${draft.id}`, auth);
  t.is(again.status, 204, again.text);
  t.deepEqual(calls, [draft.id, draft.id]);
  isProblem(t, await app.api.get(`${PKG}/${draft.id}?state=draft`, auth), 404, 'not_found');
  isProblem(t, await app.api.get(`${PKG}/${draft.id}?state=draft`, { token: app.adminToken }), 404, 'not_found');
  isProblem(t, await app.api.get(`/api/v1/resources/${resource.body.id}`, { token: app.adminToken }), 404, 'not_found');
  isProblem(t, await app.api.delete(`${PKG}/${draft.id}`, auth), 404, 'not_found');
});
