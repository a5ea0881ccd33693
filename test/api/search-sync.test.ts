import test from 'ava';
import { isProblem } from '../helpers/problem.ts';
import { semanticEnv, startTestApp, until, vectorsCaughtUp, type TestApp } from '../helpers/app.ts';
import type { Auth } from '../helpers/client.ts';
import { settledPipeline } from '../helpers/pipeline.ts';
import pg from 'pg';
import { SEARCH_CHANNEL } from '../../src/search/points-store.ts';
import { syncDatasetsSearch } from '../../src/search/sync.ts';
import { embedBacklogPage } from '../../src/search/vector-backlog.ts';

/**
 * The search indexes follow the database: publish, update, the resource pipeline (columns and file
 * text), delete, restore and purge; the admin endpoints show it, and a reindex rebuilds it. Real model,
 * embedded vector index.
 */

const API = '/api/v1';
let app: TestApp;
let admin: Auth;

interface IndexStats {
  documents: number;
  embedded: number;
  vectors: number | null;
  drift: number | null;
}
type Stats = {
  model: { name: string | null; available: boolean };
  vectorIndex: { kind: string; available: boolean };
  indexes: Record<'packages' | 'resources' | 'contents', IndexStats>;
};

const CSV =
  ['station,reading,remark', ...Array.from({ length: 40 }, (_, i) => `Quillfeather ${i},${i * 1.5},glacier meltwater sample ${i}`)].join(
    '\n',
  ) + '\n';

test.before(async () => {
  app = await startTestApp(semanticEnv());
  admin = { token: app.adminToken };
  await app.api.post(`${API}/organizations`, { name: 'sync-org' }, admin);
});
test.after.always(async () => app?.stop());

const stats = async () => (await app.api.get(`${API}/admin/search/stats`, admin)).body as Stats;
const found = async (q: string) =>
  (await app.api.get(`${API}/packages?q=${encodeURIComponent(q)}&limit=50`, admin)).body.results as Array<{
    name: string;
    match?: { keyword: boolean; semantic: Array<{ index: string; resourceId?: string }> };
  }>;

/** Creates a dataset of sync-org as the sysadmin. */
const createDataset = (fields: Record<string, unknown>) =>
  app.api.post(`${API}/packages`, { ownerOrg: 'sync-org', licenseId: 'cc-by-4.0', ...fields }, admin);

const waitForPipeline = (resourceId: string) => settledPipeline(app.api, resourceId, admin, { succeeded: true });

test.serial('publish, update, delete, restore and purge keep points and vectors in line with the row', async (t) => {
  const created = await createDataset({ name: 'bee-colonies', title: 'Honey Bee Colony Losses', notes: 'Annual losses of managed hives.' });
  t.is(created.status, 201, created.text);
  const id = created.body.id as string;
  t.true(
    (await found('honey bee colony')).some((r) => r.name === 'bee-colonies' && r.match?.keyword),
    'found by keywords at once',
  );
  await until('found by meaning once the vector backlog embeds it', async () =>
    (await found('pollinator decline')).some((r) => r.name === 'bee-colonies'),
  );
  let doc = await app.api.get(`${API}/admin/search/doc/packages/${id}`, admin);
  t.is(doc.status, 200, doc.text);
  t.regex(doc.body.text, /Honey Bee Colony Losses/);
  t.like(doc.body, { datasetId: id, embedding: { dimensions: 384 } });
  t.like(doc.body.indexed?.payload, { datasetId: id, private: false });

  const updated = await app.api.put(
    `${API}/packages/bee-colonies`,
    { name: 'bee-colonies', title: 'Wild Salmon Runs', ownerOrg: 'sync-org', licenseId: 'cc-by-4.0', notes: 'Counts of returning fish.' },
    admin,
  );
  t.is(updated.status, 200, updated.text);
  doc = await app.api.get(`${API}/admin/search/doc/packages/${id}`, admin);
  t.regex(doc.body.text, /Wild Salmon Runs/);
  t.false(
    (await found('pollinator decline')).some((r) => r.name === 'bee-colonies'),
    'the old meaning is gone',
  );
  t.true((await found('fish migration')).some((r) => r.name === 'bee-colonies'));

  t.is((await app.api.delete(`${API}/packages/bee-colonies`, admin)).status, 204);
  t.false((await found('fish migration')).some((r) => r.name === 'bee-colonies'));
  isProblem(t, await app.api.get(`${API}/admin/search/doc/packages/${id}`, admin), 404, 'not_found');
  t.is((await app.api.post(`${API}/packages/bee-colonies/restore`, {}, admin)).status, 200);
  t.true((await found('fish migration')).some((r) => r.name === 'bee-colonies'));

  t.is((await app.api.delete(`${API}/packages/bee-colonies`, admin)).status, 204);
  const vectorsBefore = (await stats()).indexes.packages.vectors;
  t.is((await app.api.post(`${API}/packages/bee-colonies/purge`, {}, admin)).status, 204);
  const after = await stats();
  t.is(after.indexes.packages.vectors, vectorsBefore, 'a soft delete already took its vectors out');
  t.is(after.indexes.packages.drift, 0);
});

test.serial(
  'a sync that leaves embedding for later drops a changed text’s old vector at once; a backlog page brings the new one',
  async (t) => {
    const created = await createDataset({ name: 'tide-gauges', title: 'Tide Gauge Readings', notes: 'Sea level at harbour gauges.' });
    t.is(created.status, 201, created.text);
    const id = created.body.id as string;
    await until('the new dataset’s vector is in the index', async () =>
      Boolean((await app.api.get(`${API}/admin/search/doc/packages/${id}`, admin)).body.indexed),
    );

    // The row changes behind the API's back, as a harvest writes it, and is synced the harvest's way.
    const { orm, storage, config, search } = app.almanac.services;
    await orm.em
      .fork()
      .execute(`update datasets set title = 'Volcano Ash Plumes', notes = 'Height of eruption clouds.' where id = ?`, [id]);
    const deps = { em: orm.em.fork(), storage, config, search };
    const [synced] = (await syncDatasetsSearch(deps, [id], { embed: 'later' })).values();
    t.deepEqual(synced, { found: true, vectors: false });
    const waiting = await app.api.get(`${API}/admin/search/doc/packages/${id}`, admin);
    t.regex(waiting.body.text, /Volcano Ash Plumes/);
    t.is(waiting.body.embedding, null, 'the new text has no vector yet');
    t.is(waiting.body.indexed, null, 'and the old text’s vector no longer answers');
    t.true(
      (await found('volcano ash')).some((r) => r.name === 'tide-gauges' && r.match?.keyword),
      'found by keywords meanwhile',
    );
    t.is((await stats()).indexes.packages.documents - (await stats()).indexes.packages.embedded, 1);

    let after = null;
    let embedded = 0;
    do {
      const page = await embedBacklogPage(orm.em.fork(), search, after, 2);
      embedded += page.embedded;
      after = page.next;
    } while (after);
    t.true(embedded >= 1);
    const done = await app.api.get(`${API}/admin/search/doc/packages/${id}`, admin);
    t.like(done.body, { embedding: { dimensions: 384 }, indexed: { payload: { datasetId: id } } });
    t.true((await found('eruption clouds')).some((r) => r.name === 'tide-gauges' && r.match?.semantic.length));
    t.deepEqual(await embedBacklogPage(orm.em.fork(), search, null), { embedded: 0, next: null }, 'nothing left');
  },
);

test.serial(
  'datasets created at the same moment are each found by keywords when their answer arrives, with a tag new to all of them',
  async (t) => {
    const words = ['Zanthoria', 'Quorlith', 'Vessipar', 'Trembalow', 'Ostravine', 'Pelunder', 'Gravick', 'Lumethra'];
    await Promise.all(
      words.map(async (word, i) => {
        const created = await createDataset({
          name: `concurrent-${i}`,
          title: `Coastal survey ${i}`,
          tags: ['kelp-forest-census', `own-${i}`],
          resources: [{ name: `${word} stations`, url: `https://files.example/${i}.csv` }],
        });
        t.is(created.status, 201, created.text);
        t.deepEqual(created.body.tags, ['kelp-forest-census', `own-${i}`]);
        // No wait: the answer means the dataset is committed and its keyword document written (the word is only
        // in its resource's name, which only that document holds).
        t.deepEqual(
          (await found(word)).map((r) => r.name),
          [`concurrent-${i}`],
          `${word} is found at once`,
        );
      }),
    );
    const tagged = await app.api.get(`${API}/packages?tags=kelp-forest-census&limit=50`, admin);
    t.is(tagged.body.count, words.length);
  },
);

test.serial('a backlog page pushes the vector of a text to every dataset that holds it, not only those of its page', async (t) => {
  const { orm, storage, config, search } = app.almanac.services;
  const shared = { name: 'Daily rainfall table', description: 'Millimetres of rain per day at each gauge.', format: 'CSV' };
  const ids: string[] = [];
  for (const name of ['rain-north', 'rain-south']) {
    const created = await createDataset({
      name,
      title: 'Rainfall at the gauges',
      resources: [{ url: `https://example.org/${name}.csv`, ...shared }],
    });
    t.is(created.status, 201, created.text);
    ids.push(created.body.id);
  }
  // The backlog job their creation announced is done before the rows change, so only the pages below embed.
  await vectorsCaughtUp(app);
  await until(
    'no vector backlog job runs',
    async () => (await app.api.get(`${API}/admin/jobs?type=vector-backlog&status=running`, admin)).body.count === 0,
  );
  // Both rewritten as a harvest writes them, their shared resource text new to the model.
  await orm.em
    .fork()
    .execute(`update resources set description = 'Millimetres of rain and hail per day.' where dataset_id = any(?::uuid[])`, [
      `{${ids.join(',')}}`,
    ]);
  await syncDatasetsSearch({ em: orm.em.fork(), storage, config, search }, ids, { embed: 'later' });
  const resourceIds = await Promise.all(
    ids.map(async (id) => (await app.api.get(`${API}/packages/${id}`, admin)).body.resources[0].id as string),
  );
  const indexed = async () =>
    Promise.all(resourceIds.map(async (rid) => (await app.api.get(`${API}/admin/search/doc/resources/${rid}`, admin)).body.indexed));
  t.deepEqual(await indexed(), [null, null]);

  // One point per page: the first resource point's page embeds the text the second one waits for too.
  let after = null;
  do after = (await embedBacklogPage(orm.em.fork(), search, after, 1)).next;
  while (after);
  const [north, south] = await indexed();
  t.truthy(north, 'the page’s own dataset');
  t.truthy(south, 'and the other dataset with the same text, which the walk no longer finds waiting');
});

test.serial('a resource is found through its columns and its file text, by keywords and by meaning', async (t) => {
  const created = await createDataset({
    name: 'field-notebook',
    title: 'Field Notebook',
    resources: [{ urlType: 'upload', name: 'readings.csv', format: 'CSV' }],
  });
  t.is(created.status, 201, created.text);
  const resourceId = created.body.resources[0].id as string;
  const upload = await fetch(`${app.url}${API}/resources/${resourceId}/upload`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${admin.token}`, 'Content-Type': 'text/csv' },
    body: CSV,
  });
  t.is(upload.status, 200, await upload.text());
  await waitForPipeline(resourceId);

  const byWordInFile = (await found('quillfeather')).find((r) => r.name === 'field-notebook');
  t.truthy(byWordInFile, 'a word that occurs only in the file finds the dataset');
  t.true(byWordInFile!.match!.keyword);
  const byMeaning = (await found('melting ice water measurements')).find((r) => r.name === 'field-notebook');
  t.truthy(byMeaning, 'the meaning of the file text finds it too');
  t.true(
    byMeaning!.match!.semantic.some((m) => m.index === 'contents' && m.resourceId === resourceId),
    JSON.stringify(byMeaning!.match),
  );

  const resourceDoc = await app.api.get(`${API}/admin/search/doc/resources/${resourceId}`, admin);
  t.is(resourceDoc.status, 200, resourceDoc.text);
  t.regex(resourceDoc.body.text, /Columns: station, reading, remark/);
  const contents = await app.api.get(`${API}/admin/search/browse/contents?q=quillfeather&limit=5`, admin);
  t.is(contents.status, 200, contents.text);
  t.true(contents.body.count >= 1);
  t.true(
    contents.body.results.every((p: { resourceId: string; text: string }) => p.resourceId === resourceId && /quillfeather/i.test(p.text)),
  );
});

test.serial('a sync writes only the points that changed, and still announces every dataset to the other processes', async (t) => {
  const { orm, storage, config, search } = app.almanac.services;
  const dataset = (await app.api.get(`${API}/packages/field-notebook`, admin)).body as { id: string; resources: Array<{ id: string }> };
  const added = await app.api.post(
    `${API}/packages/${dataset.id}/resources`,
    { name: 'Station map', description: 'Where each station stands.', url: 'https://example.org/map.pdf' },
    admin,
  );
  t.is(added.status, 201, added.text);
  const [file, map] = [dataset.resources[0]!.id, added.body.id as string];
  // A row's xmin is the transaction that wrote it: unchanged, the row was not written again.
  const versions = async () =>
    new Map(
      (
        await orm.em
          .fork()
          .execute<Array<{ key: string; xmin: string }>>(
            `select index || ':' || coalesce(resource_id::text, id::text) || ':' || coalesce(chunk, -1) as key, xmin::text from search_points where dataset_id = ?`,
            [dataset.id],
          )
      ).map((r) => [r.key, r.xmin]),
    );
  const announced: string[] = [];
  const listener = new pg.Client({ connectionString: orm.config.get('clientUrl') });
  await listener.connect();
  t.teardown(() => listener.end());
  listener.on('notification', (n) => announced.push(n.payload!));
  await listener.query(`listen ${SEARCH_CHANNEL}`);
  const sync = () => syncDatasetsSearch({ em: orm.em.fork(), storage, config, search }, [dataset.id]);

  const rowVersion = async () =>
    (await orm.em.fork().execute<Array<{ xmin: string }>>('select xmin::text from datasets where id = ?', [dataset.id]))[0]!.xmin;
  const before = await versions();
  const rowBefore = await rowVersion();
  t.true(
    [...before.keys()].some((k) => k.startsWith('contents:')),
    'the file text has points',
  );
  await sync();
  t.deepEqual(await versions(), before, 'nothing changed, nothing written');
  t.is(await rowVersion(), rowBefore, 'nor the keyword document, in the dataset’s row');
  // A sync that leaves embedding for later drops only the vectors of points it deleted or wrote again: the
  // unchanged ones stay in this process's index, not gone until its follower loads them back.
  await syncDatasetsSearch({ em: orm.em.fork(), storage, config, search }, [dataset.id], { embed: 'later' });
  t.truthy(await search.vectors.get('resources', map), 'the unchanged resource point keeps its vector');
  await until('the unchanged dataset is announced', async () => announced.includes(dataset.id));

  await orm.em.fork().execute(`update resources set description = 'Where each gauge stands.' where id = ?`, [map]);
  await sync();
  const after = await versions();
  t.deepEqual(
    [...after.keys()].filter((k) => after.get(k) !== before.get(k)).sort(),
    [...before.keys()].filter((k) => k.startsWith(`resources:${map}`)),
    'only the changed resource’s point is written again',
  );
  t.not(await rowVersion(), rowBefore, 'and the keyword document, which holds resource descriptions');
  t.regex((await app.api.get(`${API}/admin/search/doc/resources/${map}`, admin)).body.text, /each gauge stands/);

  // A file text's keyword document made in another language (SEARCH_LANGUAGE changed, then a reindex) is written again.
  await orm.em
    .fork()
    .execute(`update search_points set text_vector = to_tsvector('simple', text) where index = 'contents' and resource_id = ?`, [file]);
  const stale = await versions();
  await sync();
  const rewritten = await versions();
  t.true(
    [...rewritten].filter(([k]) => k.startsWith('contents:')).every(([k, xmin]) => xmin !== stale.get(k)),
    'every contents point written again',
  );
  const [{ same }] = await orm.em
    .fork()
    .execute<Array<{ same: boolean }>>(
      `select bool_and(text_vector = to_tsvector(?::regconfig, unaccent(text))) as same from search_points where index = 'contents' and resource_id = ?`,
      [config.search.language, file],
    );
  t.true(same);
});

test.serial('stats agree with the database; reindex-metadata rebuilds a vector index that lost points', async (t) => {
  let s = await stats();
  t.like(s, { model: { name: 'Xenova/all-MiniLM-L6-v2', available: true }, vectorIndex: { kind: 'embedded', available: true } });
  for (const index of ['packages', 'resources', 'contents'] as const) {
    t.is(s.indexes[index].drift, 0, `${index}: ${JSON.stringify(s.indexes[index])}`);
    t.is(s.indexes[index].embedded, s.indexes[index].documents);
  }
  // A vector index that lost a point (as after a crash between the two writes) shows drift...
  const [point] = (await app.api.get(`${API}/admin/search/browse/packages?limit=1`, admin)).body.results;
  await app.almanac.services.search.vectors.deleteIds('packages', [point.id]);
  t.is((await stats()).indexes.packages.drift, 1);
  // ...and a reindex brings it back, as a job, without embedding again.
  const started = await app.api.post(`${API}/admin/reindex-metadata`, {}, admin);
  t.is(started.status, 202, started.text);
  t.is(started.body.workflowId, 'reindex-metadata');
  const result = await app.almanac.services.jobs.client.workflow.getHandle('reindex-metadata').result();
  t.true(result.datasets >= 1);
  s = await stats();
  t.is(s.indexes.packages.drift, 0);
});

test('the admin search endpoints are for sysadmins; an unknown index or document is 404', async (t) => {
  const user = await app.api.newUser('search-nosy');
  for (const path of ['/admin/search/stats', '/admin/search/browse/packages']) {
    isProblem(t, await app.api.get(`${API}${path}`, { token: user.token }), 403, 'forbidden');
    isProblem(t, await app.api.get(`${API}${path}`), 401, 'unauthenticated');
  }
  isProblem(t, await app.api.post(`${API}/admin/reindex-metadata`, {}, { token: user.token }), 403, 'forbidden');
  t.is((await app.api.get(`${API}/admin/search/browse/nothing`, admin)).status, 404);
  isProblem(t, await app.api.get(`${API}/admin/search/doc/packages/00000000-0000-4000-8000-000000000000`, admin), 404, 'not_found');
  const paged = await app.api.get(`${API}/admin/search/browse/resources?limit=1&offset=0`, admin);
  t.is(paged.status, 200);
  t.is(paged.body.results.length, Math.min(1, paged.body.count));
});
