/**
 * Search catching up after faults (issue 31), on the real database and model with a vector index that can
 * be taken down: vectors the backlog could not push while the index was out of reach wait in the outbox
 * and reach the index on the next pass; a dataset committed without its search documents (its process
 * killed between the two) is written into search by the repair. The whole shape is test/cluster/.
 */
import test from 'ava';
import { createLogger } from '../../src/logger.ts';
import { repairUnsyncedDatasets } from '../../src/search/search-repair.ts';
import { SearchServices } from '../../src/search/search-services.ts';
import { embedBacklogPage } from '../../src/search/vector-backlog.ts';
import { EmbeddedVectorIndex } from '../../src/search/vectors/embedded.ts';
import { VectorIndexError } from '../../src/search/vectors/qdrant.ts';
import type { VectorIndex } from '../../src/search/vectors/vector-index.ts';
import { semanticEnv, startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
test.before(async () => {
  // No worker: the vector backlog runs only when the test calls it.
  app = await startTestApp({ ...semanticEnv(), RUN_WORKER: 'false' });
  await app.api.post('/api/v1/organizations', { name: 'catch-up' }, app.sysadmin);
});
test.after.always(async () => app?.stop());

/** An in-process index whose writes fail as an unreachable Qdrant's do while `down` is set. */
function flakyIndex() {
  const inner = new EmbeddedVectorIndex();
  const state = { down: false };
  const writes = new Set(['ensure', 'upsert', 'deleteIds', 'deleteByDataset', 'deleteByResource']);
  const index = new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (state.down && writes.has(String(key)))
          return Promise.reject(new VectorIndexError('Qdrant upsert failed: fetch failed (ECONNREFUSED)', true));
        return value.apply(target, args);
      };
    },
  }) as VectorIndex;
  return { index, inner, state };
}

const create = async (name: string, title: string, notes?: string) => {
  const made = await app.api.post('/api/v1/packages', { name, title, notes, ownerOrg: 'catch-up', licenseId: 'cc-by-4.0' }, app.sysadmin);
  if (made.status !== 201) throw new Error(made.text);
  return made.body.id as string;
};

test.serial('vectors the index missed while it was down reach it on the next backlog pass', async (t) => {
  const id = await create('kelp-forests', 'Kelp forest canopy surveys');
  const { services } = app.almanac;
  const flaky = flakyIndex();
  const search = new SearchServices(services.search.embeddings, flaky.index, createLogger('silent'));
  const em = () => services.orm.em.fork();

  flaky.state.down = true;
  const failed = await embedBacklogPage(em(), search, null).then(
    () => null,
    (err: unknown) => err,
  );
  t.true(failed instanceof VectorIndexError && failed.unreachable, String(failed));
  const noted = await em().execute<Array<{ dataset_id: string }>>('select dataset_id from vector_index_pending');
  t.true(
    noted.some((n) => n.dataset_id === id),
    'the dataset waits in the outbox',
  );

  // Its texts are cached now, so only the outbox still knows the index lacks them.
  flaky.state.down = false;
  await embedBacklogPage(em(), search, null);
  t.deepEqual(await em().execute('select dataset_id from vector_index_pending'), []);
  const stats = await flaky.inner.stats('packages');
  t.true(stats.points >= 1, 'the dataset has its vector in the index');
});

test.serial('a dataset committed without its search documents is found again after the repair', async (t) => {
  const id = await create('sea-otter-counts', 'Sea otter counts', 'Enhydra lutris along the kelp coast, counted each spring.');
  const { services } = app.almanac;
  // What a process killed between a creation's commit and its search write leaves behind.
  await services.orm.em.fork().execute('update datasets set search_vector = null where id = ?', [id]);
  await services.orm.em.fork().execute('delete from search_points where dataset_id = ?', [id]);
  // Its name and title still match by similarity; the words of its description only through its document.
  const before = await app.api.get('/api/v1/packages?q=enhydra&semantic=false');
  t.is(before.body.count, 0);

  const repaired = await repairUnsyncedDatasets({
    em: services.orm.em.fork(),
    storage: services.storage,
    config: services.config,
    search: services.search,
  });
  t.is(repaired, 1);
  const after = await app.api.get('/api/v1/packages?q=enhydra&semantic=false');
  t.deepEqual(
    after.body.results.map((d: { id: string }) => d.id),
    [id],
  );
  const [points] = await services.orm.em
    .fork()
    .execute<Array<{ n: number }>>('select count(*)::int as n from search_points where dataset_id = ?', [id]);
  t.true(points!.n > 0, 'its points are back, for the backlog to embed');
  t.is(
    await repairUnsyncedDatasets({
      em: services.orm.em.fork(),
      storage: services.storage,
      config: services.config,
      search: services.search,
    }),
    0,
  );
});
