import test from 'ava';
import { createActivities } from '../../activities/index.ts';
import { createSearchServices, type SearchServices } from '../../src/search/search-services.ts';
import { startWorker, type RunningWorker } from '../../src/temporal/worker.ts';
import { semanticEnv, startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The embedded vector index of an API process follows changes made by a worker in another process: the
 * worker here has its own search services (its own in-memory index), as `almanac worker` would, so the
 * API's index learns of a publish or a delete only through PostgreSQL's notifications.
 */

let app: TestApp;
let worker: RunningWorker;
let workerSearch: SearchServices;

test.before(async () => {
  app = await startTestApp({ ...semanticEnv(), RUN_WORKER: 'false' });
  const { orm, log, config, storage } = app.almanac.services;
  workerSearch = createSearchServices(config, log);
  worker = await startWorker({
    address: process.env.TEST_TEMPORAL_ADDRESS!,
    namespace: config.temporal.namespace,
    taskQueue: app.taskQueue,
    log,
    activities: createActivities({ orm, storage, config, search: workerSearch }),
  });
  await app.api.post('/api/v1/organizations', { name: 'follow-org' }, { token: app.adminToken });
});
test.after.always(async () => {
  await worker?.stop();
  await workerSearch?.close();
  await app?.stop();
});

async function eventually(check: () => Promise<boolean>) {
  for (let i = 0; i < 300; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

const semanticHit = async (q: string, name: string) => {
  const reply = await app.api.get(`/api/v1/packages?q=${encodeURIComponent(q)}&limit=20`);
  const hit = (reply.body.results as Array<{ name: string; match?: { semantic: unknown[] } }>).find((r) => r.name === name);
  return Boolean(hit?.match?.semantic.length);
};

test.serial("a dataset published through another process's worker reaches this process's index, and leaves it on delete", async (t) => {
  const admin = { token: app.adminToken };
  const created = await app.api.post(
    '/api/v1/packages',
    {
      name: 'volcano-eruptions',
      title: 'Volcano Eruptions',
      ownerOrg: 'follow-org',
      licenseId: 'cc-by-4.0',
      notes: 'Dates and explosivity of eruptions.',
    },
    admin,
  );
  t.is(created.status, 201, created.text);
  // The API process writes the points; the vector backlog, run by the worker, embeds them into its own index.
  t.true(
    await eventually(async () => (await workerSearch.vectors.stats('packages')).points === 1),
    'the worker indexed it in its own index',
  );
  t.true(
    await eventually(() => semanticHit('lava and magma activity', 'volcano-eruptions')),
    "found by meaning through the API process's index",
  );
  t.is((await app.api.delete('/api/v1/packages/volcano-eruptions', admin)).status, 204);
  t.true(
    await eventually(async () => (await app.almanac.services.search.vectors.stats('packages')).points === 0),
    "gone from the API process's index",
  );
});
