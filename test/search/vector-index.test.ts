/**
 * The vector index contract against the embedded index (always) and Qdrant (when QDRANT_URL is set), the
 * Qdrant adapter's filter mapping and HTTP wiring against a stand-in server, and a size check of the
 * embedded index at 100,000 points.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { QdrantClient } from '@qdrant/js-client-rest';
import test from 'ava';
import { collectionPrefix, createVectorIndex } from '../../src/search/vectors/create.ts';
import { EmbeddedVectorIndex } from '../../src/search/vectors/embedded.ts';
import { MATCHES_NOTHING, QdrantVectorIndex, toQdrantFilter } from '../../src/search/vectors/qdrant.ts';
import { INDEX_NAMES, type VectorFilter, type VectorHit, type VectorPoint } from '../../src/search/vectors/vector-index.ts';
import { freePort } from '../helpers/ports.ts';
import { payload, randomUnitVector, seededRandom, unitVector, vectorIndexContract } from './vector-index-contract.ts';

vectorIndexContract('embedded', async () => {
  const index = new EmbeddedVectorIndex();
  return { index, dispose: () => index.close() };
});

const qdrantUrl = process.env.QDRANT_URL;
if (qdrantUrl) {
  const run = `almanac_test_${Date.now().toString(36)}_${randomUUID().slice(0, 8)}`;
  let harnesses = 0;
  vectorIndexContract('qdrant', async () => {
    const index = new QdrantVectorIndex({ url: qdrantUrl, apiKey: process.env.QDRANT_API_KEY, collectionPrefix: `${run}_${harnesses++}_` });
    return {
      index,
      async dispose() {
        const admin = new QdrantClient({ url: qdrantUrl, headers: { 'api-key': process.env.QDRANT_API_KEY }, checkCompatibility: false });
        await Promise.all(INDEX_NAMES.map((name) => admin.deleteCollection(index.collectionName(name)).catch(() => {})));
        await index.close();
      },
    };
  });
} else {
  test.skip('Qdrant contract skipped: QDRANT_URL is not set', (t) => t.pass());
}

test('createVectorIndex picks Qdrant when a URL is configured and the embedded index otherwise', (t) => {
  t.is(createVectorIndex({ mode: 'embedded' }, 'Xenova/all-MiniLM-L6-v2').kind, 'embedded');
  const qdrant = createVectorIndex({ mode: 'qdrant', url: 'http://127.0.0.1:6333', apiKey: undefined }, 'Xenova/all-MiniLM-L6-v2');
  t.is(qdrant.kind, 'qdrant');
  t.is((qdrant as QdrantVectorIndex).collectionName('packages'), 'almanac_xenova_all_minilm_l6_v2_packages', 'collections are per model');
  t.is(collectionPrefix(null), 'almanac_');
});

test('Qdrant filter: an anonymous caller may see public points only', (t) => {
  t.deepEqual(toQdrantFilter({ privateOrgIds: [] }), { must: [{ key: 'private', match: { value: false } }] });
});

test("Qdrant filter: a member sees public points or its organizations' private ones", (t) => {
  t.deepEqual(toQdrantFilter({ privateOrgIds: ['o1', 'o2'] }), {
    must: [
      {
        should: [
          { key: 'private', match: { value: false } },
          { key: 'orgId', match: { any: ['o1', 'o2'] } },
        ],
      },
    ],
  });
});

test("Qdrant filter: 'all' adds no condition", (t) => {
  t.deepEqual(toQdrantFilter({ privateOrgIds: 'all' }), {});
});

test('Qdrant filter: every list is one any-of condition, ANDed; excluded organizations are must_not', (t) => {
  t.deepEqual(
    toQdrantFilter({
      privateOrgIds: 'all',
      datasetIds: ['d1'],
      orgIds: ['o1', 'o2'],
      excludeOrgIds: ['o3'],
      groups: ['g1'],
      tags: ['t1', 't2'],
      formats: ['CSV'],
      licenses: ['cc-by'],
    }),
    {
      must: [
        { key: 'datasetId', match: { any: ['d1'] } },
        { key: 'orgId', match: { any: ['o1', 'o2'] } },
        { key: 'groups', match: { any: ['g1'] } },
        { key: 'tags', match: { any: ['t1', 't2'] } },
        { key: 'formats', match: { any: ['CSV'] } },
        { key: 'license', match: { any: ['cc-by'] } },
      ],
      must_not: [{ key: 'orgId', match: { any: ['o3'] } }],
    },
  );
});

test('Qdrant filter: an empty list matches nothing, an empty exclusion excludes nothing', (t) => {
  t.is(toQdrantFilter({ privateOrgIds: 'all', datasetIds: [] }), MATCHES_NOTHING);
  t.deepEqual(toQdrantFilter({ privateOrgIds: [], excludeOrgIds: [] }), { must: [{ key: 'private', match: { value: false } }] });
});

interface SeenRequest {
  method: string;
  path: string;
  body: unknown;
  headers: http.IncomingHttpHeaders;
}

/** Plays Qdrant's HTTP API with canned answers, recording what the adapter asked. */
async function standInQdrant(answer: (request: SeenRequest) => { status: number; result?: unknown; error?: string }) {
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      const request = { method: req.method!, path: req.url!, body: text ? JSON.parse(text) : undefined, headers: req.headers };
      seen.push(request);
      const { status, result, error } = answer(request);
      const body = error === undefined ? { result, status: 'ok', time: 0.001 } : { status: { error }, time: 0.001 };
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

test('Qdrant healthy() is true when Qdrant answers and false, quickly, when nothing listens', async (t) => {
  const qdrant = await standInQdrant(() => ({ status: 200, result: { collections: [] } }));
  t.teardown(qdrant.close);
  t.true(await new QdrantVectorIndex({ url: qdrant.url }).healthy());
  const started = Date.now();
  t.false(await new QdrantVectorIndex({ url: `http://127.0.0.1:${await freePort()}` }).healthy());
  t.true(Date.now() - started < 3000);
});

test('Qdrant errors say what failed and never carry the API key, even when the server echoes it', async (t) => {
  const apiKey = `key-${randomUUID()}`;
  const qdrant = await standInQdrant((request) => ({
    status: 500,
    error: `storage failure (request had api-key ${String(request.headers['api-key'])})`,
  }));
  t.teardown(qdrant.close);
  const index = new QdrantVectorIndex({ url: qdrant.url, apiKey });
  const err = await t.throwsAsync(index.ensure('packages', 4));
  t.is(qdrant.seen[0].headers['api-key'], apiKey, 'the key is sent');
  t.regex(err!.message, /Qdrant get collection on almanac_packages failed: 500 storage failure/);
  t.false(err!.message.includes(apiKey));
  t.false(JSON.stringify(err).includes(apiKey));
  t.is(err!.cause, undefined);
  const unreachable = new QdrantVectorIndex({ url: `http://127.0.0.1:${await freePort()}`, apiKey });
  const down = await t.throwsAsync(unreachable.search('packages', new Float32Array([1, 0]), { privateOrgIds: [] }, 3));
  t.regex(down!.message, /Qdrant search on almanac_packages failed/);
  t.false(down!.message.includes(apiKey));
});

test('Qdrant ensure on a new collection creates it with Cosine distance and indexes every filtered field', async (t) => {
  const qdrant = await standInQdrant(({ method, path }) => {
    if (method === 'GET' && path === '/collections/almanac_contents')
      return { status: 404, error: 'Not found: Collection `almanac_contents` does not exist!' };
    return { status: 200, result: true };
  });
  t.teardown(qdrant.close);
  await new QdrantVectorIndex({ url: qdrant.url }).ensure('contents', 384);
  const [look, create, ...indexes] = qdrant.seen;
  t.like(look, { method: 'GET', path: '/collections/almanac_contents' });
  t.like(create, { method: 'PUT', path: '/collections/almanac_contents', body: { vectors: { size: 384, distance: 'Cosine' } } });
  t.deepEqual(
    indexes.map((r) => [(r.body as { field_name: string }).field_name, (r.body as { field_schema: unknown }).field_schema]),
    [
      ['datasetId', 'keyword'],
      ['orgId', 'keyword'],
      ['resourceId', 'keyword'],
      ['private', 'bool'],
      ['groups', 'keyword'],
      ['tags', 'keyword'],
      ['formats', 'keyword'],
      ['license', 'keyword'],
      ['text', { type: 'text', tokenizer: 'word', lowercase: true }],
    ],
  );
  t.true(
    indexes.every((r) => r.method === 'PUT' && r.path.startsWith('/collections/almanac_contents/index?') && r.path.includes('wait=true')),
  );
});

test('Qdrant ensure re-creates a collection whose vectors have another size', async (t) => {
  const info = {
    status: 'green',
    optimizer_status: 'ok',
    segments_count: 1,
    payload_schema: {},
    config: { params: { vectors: { size: 768, distance: 'Cosine' } } },
  };
  const qdrant = await standInQdrant(({ method }) => (method === 'GET' ? { status: 200, result: info } : { status: 200, result: true }));
  t.teardown(qdrant.close);
  await new QdrantVectorIndex({ url: qdrant.url, collectionPrefix: 'x_' }).ensure('packages', 384);
  t.deepEqual(
    qdrant.seen.slice(0, 3).map((r) => `${r.method} ${r.path.split('?')[0]}`),
    ['GET /collections/x_packages', 'DELETE /collections/x_packages', 'PUT /collections/x_packages'],
  );
});

test('Qdrant search sends the vector and the mapped filter to the query endpoint and maps the hits back', async (t) => {
  const id = randomUUID();
  const stored = payload({ resourceId: randomUUID(), chunk: 2 });
  const qdrant = await standInQdrant(() => ({ status: 200, result: { points: [{ id, version: 1, score: 0.93, payload: stored }] } }));
  t.teardown(qdrant.close);
  const index = new QdrantVectorIndex({ url: qdrant.url });
  const hits = await index.search('contents', new Float32Array([0.6, 0.8]), { privateOrgIds: ['o1'], tags: ['t'] }, 7);
  t.deepEqual(hits, [{ id, score: 0.93, payload: stored }]);
  t.like(qdrant.seen[0], { method: 'POST', path: '/collections/almanac_contents/points/query' });
  t.like(qdrant.seen[0].body as object, { limit: 7, with_payload: true, filter: toQdrantFilter({ privateOrgIds: ['o1'], tags: ['t'] }) });
  t.deepEqual(
    (qdrant.seen[0].body as { query: number[] }).query.map((x) => Math.round(x * 10) / 10),
    [0.6, 0.8],
  );
  t.deepEqual(await index.search('contents', new Float32Array([1, 0]), { privateOrgIds: 'all', datasetIds: [] }, 7), []);
  t.is(qdrant.seen.length, 1, 'a filter that matches nothing asks nothing');
});

test('embedded index reuses the slots of deleted points instead of growing', async (t) => {
  const index = new EmbeddedVectorIndex();
  const random = seededRandom(3);
  await index.ensure('packages', 16);
  const make = (): VectorPoint => ({
    id: randomUUID(),
    vector: randomUnitVector(random, 16),
    payload: payload({ datasetId: 'same-length-id' }),
  });
  // 4096 points of 16 dimensions fill one storage block exactly: without reuse, the next point would start another.
  const first = Array.from({ length: 4096 }, make);
  await index.upsert('packages', first);
  const full = (await index.stats('packages')).bytes;
  await index.deleteIds(
    'packages',
    first.slice(0, 500).map((p) => p.id),
  );
  await index.upsert('packages', Array.from({ length: 500 }, make));
  t.like(await index.stats('packages'), { points: 4096, bytes: full });
  await index.upsert('packages', [make()]);
  t.true((await index.stats('packages')).bytes! > full!);
});

// The two large embedded-index tests hold this process's event loop for many seconds at a time: serial, so
// they run before the others and no Qdrant call or stand-in server here waits behind them (a 30 s client
// timeout fired on an idle Qdrant when they ran side by side under load).
test.serial('embedded index at 100,000 points of 384 dimensions: search times and memory (logged, not asserted)', async (t) => {
  const dimensions = 384;
  const count = 100_000;
  const random = seededRandom(42);
  const index = new EmbeddedVectorIndex();
  await index.ensure('contents', dimensions);
  const orgs = Array.from({ length: 50 }, (_, i) => `org-${i}`);
  const tags = Array.from({ length: 200 }, (_, i) => `tag-${i}`);
  const memoryBefore = process.memoryUsage();
  let loadMs = 0;
  for (let i = 0; i < count; i += 1000) {
    const batch = Array.from({ length: 1000 }, (_, j) => ({
      id: randomUUID(),
      vector: randomUnitVector(random, dimensions),
      payload: payload({
        datasetId: `ds-${(i + j) % 20_000}`,
        orgId: orgs[(i + j) % orgs.length],
        private: (i + j) % 3 === 0,
        tags: [tags[(i + j) % tags.length], tags[(i + j * 7) % tags.length]],
        formats: ['CSV'],
        resourceId: `r-${i + j}`,
        chunk: 0,
        text: `chunk ${i + j} of a resource`,
      }),
    }));
    const started = performance.now();
    await index.upsert('contents', batch);
    loadMs += performance.now() - started;
  }
  const memoryAfter = process.memoryUsage();
  const query = randomUnitVector(random, dimensions);
  const selective = { privateOrgIds: ['org-1', 'org-2'], tags: ['tag-3', 'tag-4', 'tag-5', 'tag-6', 'tag-7', 'tag-8', 'tag-9', 'tag-10'] };
  const timed = async (filter: VectorFilter) => {
    const times: number[] = [];
    let found: VectorHit[] = [];
    for (let i = 0; i < 7; i++) {
      const started = performance.now();
      found = await index.search('contents', query, filter, 20);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return { found, summary: `median ${times[3].toFixed(1)} ms (min ${times[0].toFixed(1)}, max ${times[6].toFixed(1)})` };
  };
  const anonymous = await timed({ privateOrgIds: [] });
  const narrow = await timed(selective);
  const everything = await timed({ privateOrgIds: 'all' });
  const hits = narrow.found;
  const stats = await index.stats('contents');
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
  t.log(`upserted ${count} points × ${dimensions} dims in ${(loadMs / 1000).toFixed(1)} s (not counting making the test vectors)`);
  t.log(`search, limit 20, anonymous (2/3 of the points pass): ${anonymous.summary}`);
  t.log(`search, limit 20, a member + 8 of 200 tags (a selective filter): ${narrow.summary}`);
  t.log(`search, limit 20, no filter ('all'): ${everything.summary}`);
  t.log(
    `memory: stats.bytes ${mib(stats.bytes!)}; process grew by ${mib(memoryAfter.arrayBuffers - memoryBefore.arrayBuffers)} array buffers, ${mib(memoryAfter.heapUsed - memoryBefore.heapUsed)} heap`,
  );
  t.is(anonymous.found.length, 20);
  t.true(anonymous.found.every((h) => !h.payload.private));
  t.is(hits.length, 20);
  t.true(
    hits.every(
      (h) =>
        (!h.payload.private || ['org-1', 'org-2'].includes(h.payload.orgId!)) && h.payload.tags.some((tag) => selective.tags.includes(tag)),
    ),
  );
  t.like(stats, { points: count, dimensions });
  await index.close();
});

test.serial(
  'a large embedded index answers through its graph: near the exact pass also among exact duplicates, exact for a narrow filter, never a deleted or stale point',
  async (t) => {
    const dimensions = 32;
    const random = seededRandom(7);
    const index = new EmbeddedVectorIndex({ annMinPoints: 1_000 });
    await index.ensure('packages', dimensions);
    // Clusters of near-duplicates, as a real catalog's texts are.
    const centers = Array.from({ length: 100 }, () => randomUnitVector(random, dimensions));
    const near = (center: Float32Array) => unitVector([...center].map((x) => x + (random() - 0.5) * 0.2));
    const points: VectorPoint[] = Array.from({ length: 3_000 }, (_, i) => ({
      id: randomUUID(),
      vector: near(centers[i % centers.length]!),
      payload: payload({ datasetId: `ds-${i}`, orgId: i % 100 === 0 ? 'org-rare' : 'org-common', private: i % 4 === 0 }),
    }));
    // And exact duplicates, as when a text is indexed many times: 20 copies of 50 of those vectors.
    const copies: VectorPoint[] = Array.from({ length: 1_000 }, (_, i) => ({
      id: randomUUID(),
      vector: points[i % 50]!.vector,
      payload: payload({ datasetId: `copy-${i}`, orgId: 'org-common' }),
    }));
    const all = [...points, ...copies];
    for (let i = 0; i < all.length; i += 500) await index.upsert('packages', all.slice(i, i + 500));
    await index.whenGraphsSettled();

    let overlap = 0;
    const queries = Array.from({ length: 20 }, () => near(centers[Math.floor(random() * centers.length)]!));
    for (const query of queries) {
      const graph = await index.search('packages', query, { privateOrgIds: [] }, 10);
      const exact = await index.exactSearch('packages', query, { privateOrgIds: [] }, 10);
      t.is(graph.length, 10);
      t.true(graph.every((h) => !h.payload.private));
      // By score: among identical copies, any is as right as another.
      const tenth = exact.at(-1)!.score;
      overlap += graph.filter((h) => h.score >= tenth - 1e-6).length;
    }
    t.true(overlap / (queries.length * 10) >= 0.9, `recall@10 ${overlap / (queries.length * 10)}`);

    // 30 points of org-rare: the graph's candidates hold too few of them, and the exact pass answers.
    const narrow: VectorFilter = { privateOrgIds: 'all', orgIds: ['org-rare'] };
    t.deepEqual(await index.search('packages', queries[0]!, narrow, 20), await index.exactSearch('packages', queries[0]!, narrow, 20));

    const [first] = await index.search('packages', queries[1]!, { privateOrgIds: 'all' }, 1);
    await index.deleteIds('packages', [first!.id]);
    t.false((await index.search('packages', queries[1]!, { privateOrgIds: 'all' }, 50)).some((h) => h.id === first!.id));
    const moved = points[1]!;
    await index.upsert('packages', [{ ...moved, vector: queries[2]! }]);
    const [top] = await index.search('packages', queries[2]!, { privateOrgIds: 'all' }, 1);
    t.is(top?.id, moved.id, 'an updated vector is found where it now is, as soon as its upsert returns');
    await index.whenGraphsSettled();
    const [again] = await index.search('packages', queries[2]!, { privateOrgIds: 'all' }, 1);
    t.is(again?.id, moved.id, 'and through the graph once it has taken it in');
    await index.close();
  },
);
