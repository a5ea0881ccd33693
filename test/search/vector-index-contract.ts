/**
 * The behaviour every VectorIndex adapter owes its callers, as one list of cases: vector-index.test.ts
 * runs it against the embedded index and, when QDRANT_URL is set, against Qdrant.
 */
import { randomUUID } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import type { IndexName, VectorFilter, VectorIndex, VectorPayload, VectorPoint } from '../../src/search/vectors/vector-index.ts';

export interface VectorIndexHarness {
  index: VectorIndex;
  /** Removes whatever the index holds (collections, memory). */
  dispose(): Promise<void>;
}

/** Scores cross float32 storage and the engine's own arithmetic. */
const SCORE_TOLERANCE = 1e-4;

/** mulberry32: a seeded PRNG, so every run builds the same vectors. */
export function seededRandom(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function unitVector(values: ArrayLike<number>) {
  const v = Float32Array.from(values);
  const norm = Math.hypot(...v);
  for (let i = 0; i < v.length; i++) v[i] /= norm;
  return v;
}

export function randomUnitVector(random: () => number, dimensions: number) {
  return unitVector(Array.from({ length: dimensions }, () => random() * 2 - 1));
}

export const cosine = (a: Float32Array, b: Float32Array) => {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot / (Math.hypot(...a) * Math.hypot(...b));
};

export function payload(overrides: Partial<VectorPayload> = {}): VectorPayload {
  return {
    datasetId: randomUUID(),
    orgId: 'org-a',
    private: false,
    groups: [],
    tags: [],
    formats: [],
    license: 'cc-by',
    text: 'a dataset',
    ...overrides,
  };
}

const point = (vector: Float32Array, overrides: Partial<VectorPayload> = {}, id = randomUUID()): VectorPoint => ({
  id,
  vector,
  payload: payload(overrides),
});

/** The points of the filter cases, by name; vectors are random, the names are what the cases compare. */
const FILTER_FIXTURE: Record<string, Partial<VectorPayload>> = {
  p1: { orgId: 'org-a', private: false, datasetId: 'ds1', groups: ['g1'], tags: ['climate', 'water'], formats: ['CSV'], license: 'cc-by' },
  p2: { orgId: 'org-a', private: true, datasetId: 'ds2', groups: ['g2'], tags: ['water'], formats: ['JSON'], license: 'odbl' },
  p3: {
    orgId: 'org-b',
    private: false,
    datasetId: 'ds3',
    groups: ['g1', 'g2'],
    tags: ['health'],
    formats: ['CSV', 'PDF'],
    license: 'cc-by',
  },
  p4: { orgId: 'org-b', private: true, datasetId: 'ds4', groups: [], tags: ['climate'], formats: ['PDF'], license: null },
  p5: { orgId: 'org-c', private: false, datasetId: 'ds5', groups: ['g3'], tags: [], formats: [], license: 'cc0' },
  p6: { orgId: 'org-c', private: true, datasetId: 'ds6', groups: ['g3'], tags: ['transport'], formats: ['CSV'], license: 'cc0' },
  p7: { orgId: null, private: false, datasetId: 'ds7', groups: [], tags: ['water'], formats: ['XLSX'], license: 'cc-by' },
  p8: {
    orgId: 'org-a',
    private: false,
    datasetId: 'ds1',
    resourceId: 'r1',
    groups: ['g1'],
    tags: ['climate', 'water'],
    formats: ['CSV'],
    license: 'cc-by',
  },
};

const FILTER_CASES: [string, VectorFilter, string[]][] = [
  ['anonymous ([]) sees only public points', { privateOrgIds: [] }, ['p1', 'p3', 'p5', 'p7', 'p8']],
  [
    "a member sees public points and its own organization's private ones",
    { privateOrgIds: ['org-a'] },
    ['p1', 'p2', 'p3', 'p5', 'p7', 'p8'],
  ],
  ['a member of two organizations sees both', { privateOrgIds: ['org-a', 'org-b'] }, ['p1', 'p2', 'p3', 'p4', 'p5', 'p7', 'p8']],
  ["'all' sees everything", { privateOrgIds: 'all' }, ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8']],
  ['orgIds: one', { privateOrgIds: 'all', orgIds: ['org-a'] }, ['p1', 'p2', 'p8']],
  ['orgIds: any of two', { privateOrgIds: 'all', orgIds: ['org-a', 'org-c'] }, ['p1', 'p2', 'p5', 'p6', 'p8']],
  [
    'excludeOrgIds keeps points without an organization',
    { privateOrgIds: 'all', excludeOrgIds: ['org-a'] },
    ['p3', 'p4', 'p5', 'p6', 'p7'],
  ],
  ['groups: one', { privateOrgIds: 'all', groups: ['g1'] }, ['p1', 'p3', 'p8']],
  ['groups: any of two', { privateOrgIds: 'all', groups: ['g2', 'g3'] }, ['p2', 'p3', 'p5', 'p6']],
  ['tags: one', { privateOrgIds: 'all', tags: ['water'] }, ['p1', 'p2', 'p7', 'p8']],
  ['tags: any of two', { privateOrgIds: 'all', tags: ['health', 'transport'] }, ['p3', 'p6']],
  ['formats: one', { privateOrgIds: 'all', formats: ['PDF'] }, ['p3', 'p4']],
  ['formats: any of two', { privateOrgIds: 'all', formats: ['JSON', 'XLSX'] }, ['p2', 'p7']],
  ['licenses: one', { privateOrgIds: 'all', licenses: ['cc0'] }, ['p5', 'p6']],
  ['licenses: any of two', { privateOrgIds: 'all', licenses: ['cc-by', 'odbl'] }, ['p1', 'p2', 'p3', 'p7', 'p8']],
  ['datasetIds: one', { privateOrgIds: 'all', datasetIds: ['ds1'] }, ['p1', 'p8']],
  ['datasetIds: any of two', { privateOrgIds: 'all', datasetIds: ['ds3', 'ds6'] }, ['p3', 'p6']],
  ['visibility AND tags AND formats', { privateOrgIds: [], tags: ['water'], formats: ['CSV'] }, ['p1', 'p8']],
  ['a member AND tags', { privateOrgIds: ['org-b'], tags: ['climate'] }, ['p1', 'p4', 'p8']],
  [
    'groups AND licenses AND excludeOrgIds',
    { privateOrgIds: 'all', groups: ['g1', 'g2'], licenses: ['cc-by'], excludeOrgIds: ['org-b'] },
    ['p1', 'p8'],
  ],
  ['orgIds AND datasetIds that do not overlap', { privateOrgIds: 'all', orgIds: ['org-b'], datasetIds: ['ds1'] }, []],
  ['an empty list matches nothing', { privateOrgIds: 'all', tags: [] }, []],
  [
    'an empty excludeOrgIds excludes nothing',
    { privateOrgIds: 'all', excludeOrgIds: [] },
    ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8'],
  ],
];

export function vectorIndexContract(title: string, open: () => Promise<VectorIndexHarness>) {
  const setup = async (t: ExecutionContext) => {
    const harness = await open();
    t.teardown(() => harness.dispose());
    return harness.index;
  };
  const named = (name: string) => `${title}: ${name}`;

  test(named('ensure is idempotent: a second ensure with the same dimensions keeps the points'), async (t) => {
    const index = await setup(t);
    await index.ensure('packages', 4);
    await index.upsert('packages', [point(unitVector([1, 0, 0, 0]))]);
    await index.ensure('packages', 4);
    await index.ensure('packages', 4);
    t.like(await index.stats('packages'), { points: 1, dimensions: 4 });
  });

  test(named('ensure with other dimensions drops the old points and takes vectors of the new length'), async (t) => {
    const index = await setup(t);
    await index.ensure('packages', 4);
    const old = point(unitVector([1, 0, 0, 0]));
    await index.upsert('packages', [old]);
    await index.ensure('packages', 3);
    t.like(await index.stats('packages'), { points: 0, dimensions: 3 });
    t.is(await index.get('packages', old.id), null);
    const fresh = point(unitVector([0, 1, 0]));
    await index.upsert('packages', [fresh]);
    t.deepEqual(
      (await index.search('packages', unitVector([0, 1, 0]), { privateOrgIds: 'all' }, 5)).map((h) => h.id),
      [fresh.id],
    );
  });

  test(named('search returns the nearest points first, with their cosine similarity as the score'), async (t) => {
    const index = await setup(t);
    await index.ensure('packages', 4);
    const same = point(unitVector([1, 0, 0, 0]), { text: 'same' });
    const close = point(unitVector([1, 1, 0, 0]), { text: 'close' });
    const farther = point(unitVector([1, 1, 1, 0]), { text: 'farther' });
    const orthogonal = point(unitVector([0, 0, 0, 1]), { text: 'orthogonal' });
    const opposite = point(unitVector([-1, 0, 0, 0]), { text: 'opposite' });
    await index.upsert('packages', [opposite, farther, same, orthogonal, close]);
    const hits = await index.search('packages', unitVector([1, 0, 0, 0]), { privateOrgIds: 'all' }, 10);
    t.deepEqual(
      hits.map((h) => h.payload.text),
      ['same', 'close', 'farther', 'orthogonal', 'opposite'],
    );
    const expected = [1, Math.SQRT1_2, 1 / Math.sqrt(3), 0, -1];
    hits.forEach((hit, i) =>
      t.true(Math.abs(hit.score - expected[i]) < SCORE_TOLERANCE, `${hit.payload.text}: ${hit.score} vs ${expected[i]}`),
    );
    t.deepEqual(hits[0], { id: same.id, score: hits[0].score, payload: same.payload });
    t.is((await index.search('packages', unitVector([1, 0, 0, 0]), { privateOrgIds: 'all' }, 2)).length, 2);
  });

  test(named('search over 300 random points agrees with a brute-force ranking'), async (t) => {
    const index = await setup(t);
    const random = seededRandom(7);
    await index.ensure('packages', 24);
    const points = Array.from({ length: 300 }, () => point(randomUnitVector(random, 24)));
    await index.upsert('packages', points);
    for (let q = 0; q < 5; q++) {
      const query = randomUnitVector(random, 24);
      const expected = points
        .map((p) => ({ id: p.id, score: cosine(query, p.vector) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 15);
      const hits = await index.search('packages', query, { privateOrgIds: 'all' }, 15);
      t.deepEqual(
        hits.map((h) => h.id),
        expected.map((e) => e.id),
      );
      hits.forEach((hit, i) => t.true(Math.abs(hit.score - expected[i].score) < SCORE_TOLERANCE));
    }
  });

  test(named('upserting an existing id replaces its vector and its payload'), async (t) => {
    const index = await setup(t);
    await index.ensure('packages', 4);
    const id = randomUUID();
    await index.upsert('packages', [point(unitVector([1, 0, 0, 0]), { text: 'before', tags: ['old'] }, id)]);
    const after = point(unitVector([0, 1, 0, 0]), { text: 'after', tags: ['new'], private: true }, id);
    await index.upsert('packages', [after]);
    t.like(await index.stats('packages'), { points: 1 });
    t.deepEqual(await index.get('packages', id), { id, payload: after.payload });
    const [hit] = await index.search('packages', unitVector([0, 1, 0, 0]), { privateOrgIds: 'all' }, 1);
    t.is(hit.id, id);
    t.true(Math.abs(hit.score - 1) < SCORE_TOLERANCE);
    t.deepEqual(await index.search('packages', unitVector([0, 1, 0, 0]), { privateOrgIds: 'all', tags: ['old'] }, 1), []);
  });

  test(named('vectors of the wrong length and indexes never ensured are refused'), async (t) => {
    const index = await setup(t);
    await t.throwsAsync(index.upsert('packages', [point(unitVector([1, 0, 0, 0]))]));
    await index.ensure('packages', 4);
    const wrong = point(unitVector([1, 0, 0]));
    await t.throwsAsync(index.upsert('packages', [wrong]));
    t.is(await index.get('packages', wrong.id), null);
    await t.throwsAsync(index.search('packages', unitVector([1, 0, 0]), { privateOrgIds: 'all' }, 5));
  });

  test(named('reading an index never ensured finds nothing'), async (t) => {
    const index = await setup(t);
    t.deepEqual(await index.search('resources', unitVector([1, 0]), { privateOrgIds: 'all' }, 5), []);
    t.is(await index.get('resources', randomUUID()), null);
    t.deepEqual(await index.browse('resources', { offset: 0, limit: 10 }), { total: 0, points: [] });
    t.deepEqual(await index.stats('resources'), { points: 0, dimensions: null, bytes: null });
    await index.deleteIds('resources', [randomUUID()]);
    await index.deleteByDataset('resources', randomUUID());
    await index.deleteByResource('resources', randomUUID());
  });

  test(named('every filter field, alone and combined, keeps exactly the matching points'), async (t) => {
    const index = await setup(t);
    const random = seededRandom(11);
    await index.ensure('packages', 8);
    const idOf = new Map<string, string>();
    const nameOf = new Map<string, string>();
    const points = Object.entries(FILTER_FIXTURE).map(([name, overrides]) => {
      const p = point(randomUnitVector(random, 8), { text: name, ...overrides });
      idOf.set(name, p.id);
      nameOf.set(p.id, name);
      return p;
    });
    await index.upsert('packages', points);
    const query = randomUnitVector(random, 8);
    for (const [label, filter, expected] of FILTER_CASES) {
      const hits = await index.search('packages', query, filter, 50);
      t.deepEqual(hits.map((h) => nameOf.get(h.id)).sort(), expected, label);
      // The ranking among the survivors is still by score.
      t.deepEqual(
        hits.map((h) => h.score),
        [...hits.map((h) => h.score)].sort((a, b) => b - a),
        `${label}: order`,
      );
    }
  });

  test(named('the filter applies inside the search: with the 5 nearest hidden, a search still fills its limit'), async (t) => {
    const index = await setup(t);
    const random = seededRandom(23);
    const dimensions = 32;
    await index.ensure('packages', dimensions);
    const query = randomUnitVector(random, dimensions);
    const hidden = Array.from({ length: 5 }, () => {
      const near = query.map((x) => x + (random() - 0.5) * 0.05);
      return point(unitVector(near), { private: true, orgId: 'org-secret' });
    });
    const visible = Array.from({ length: 995 }, () => point(randomUnitVector(random, dimensions), { private: false, orgId: 'org-open' }));
    await index.upsert('packages', [...visible.slice(0, 500), ...hidden, ...visible.slice(500)]);

    const everything = await index.search('packages', query, { privateOrgIds: 'all' }, 5);
    t.deepEqual(everything.map((h) => h.id).sort(), hidden.map((p) => p.id).sort(), 'the hidden points are the nearest');

    const hits = await index.search('packages', query, { privateOrgIds: [] }, 10);
    const expected = visible
      .map((p) => ({ id: p.id, score: cosine(query, p.vector) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 10);
    t.deepEqual(
      hits.map((h) => h.id),
      expected.map((e) => e.id),
    );
    const member = await index.search('packages', query, { privateOrgIds: ['org-open'] }, 10);
    t.deepEqual(
      member.map((h) => h.id),
      expected.map((e) => e.id),
    );
  });

  test(named('deleteIds removes those points only, and unknown ids are ignored'), async (t) => {
    const index = await setup(t);
    await index.ensure('packages', 4);
    const [a, b, c] = [point(unitVector([1, 0, 0, 0])), point(unitVector([0, 1, 0, 0])), point(unitVector([0, 0, 1, 0]))];
    await index.upsert('packages', [a, b, c]);
    await index.deleteIds('packages', [a.id, c.id, randomUUID()]);
    t.is(await index.get('packages', a.id), null);
    t.is(await index.get('packages', c.id), null);
    t.truthy(await index.get('packages', b.id));
    t.deepEqual(
      (await index.search('packages', unitVector([1, 0, 1, 0]), { privateOrgIds: 'all' }, 10)).map((h) => h.id),
      [b.id],
    );
    t.like(await index.stats('packages'), { points: 1 });
    // A deleted id can come back.
    await index.upsert('packages', [a]);
    t.like(await index.stats('packages'), { points: 2 });
  });

  test(named('deleteByDataset removes every point of that dataset and nothing else'), async (t) => {
    const index = await setup(t);
    await index.ensure('resources', 4);
    const keep = randomUUID();
    const drop = randomUUID();
    const points = [
      point(unitVector([1, 0, 0, 0]), { datasetId: drop, resourceId: randomUUID() }),
      point(unitVector([0, 1, 0, 0]), { datasetId: drop, resourceId: randomUUID() }),
      point(unitVector([0, 0, 1, 0]), { datasetId: keep, resourceId: randomUUID() }),
    ];
    await index.upsert('resources', points);
    await index.deleteByDataset('resources', drop);
    await index.deleteByDataset('resources', randomUUID());
    const hits = await index.search('resources', unitVector([1, 1, 1, 1]), { privateOrgIds: 'all' }, 10);
    t.deepEqual(
      hits.map((h) => h.payload.datasetId),
      [keep],
    );
    t.like(await index.stats('resources'), { points: 1 });
  });

  test(named('deleteByResource removes every chunk of that resource and nothing else'), async (t) => {
    const index = await setup(t);
    await index.ensure('contents', 4);
    const datasetId = randomUUID();
    const [r1, r2] = [randomUUID(), randomUUID()];
    const chunks = [0, 1, 2].map((chunk) =>
      point(unitVector([1, chunk, 0, 0]), { datasetId, resourceId: r1, chunk, text: `r1 chunk ${chunk}` }),
    );
    const other = point(unitVector([0, 0, 1, 0]), { datasetId, resourceId: r2, chunk: 0, text: 'r2 chunk 0' });
    await index.upsert('contents', [...chunks, other]);
    await index.deleteByResource('contents', r1);
    const hits = await index.search('contents', unitVector([1, 1, 1, 1]), { privateOrgIds: 'all' }, 10);
    t.deepEqual(
      hits.map((h) => h.id),
      [other.id],
    );
    t.deepEqual(hits[0].payload, other.payload);
  });

  test(named('get returns the stored payload, optional fields included, and null for an unknown id'), async (t) => {
    const index = await setup(t);
    await index.ensure('contents', 4);
    const chunk = point(unitVector([1, 0, 0, 0]), {
      resourceId: randomUUID(),
      chunk: 3,
      orgId: null,
      license: null,
      groups: ['g'],
      tags: ['t1', 't2'],
      formats: ['CSV'],
      text: 'Station,Rainfall',
    });
    await index.upsert('contents', [chunk]);
    t.deepEqual(await index.get('contents', chunk.id), { id: chunk.id, payload: chunk.payload });
    t.is(await index.get('contents', randomUUID()), null);
  });

  test(named('browse pages through every point once, in id order, with a stable total'), async (t) => {
    const index = await setup(t);
    const random = seededRandom(31);
    await index.ensure('packages', 4);
    const points = Array.from({ length: 57 }, (_, i) => point(randomUnitVector(random, 4), { text: `point ${i}` }));
    await index.upsert('packages', points);
    const seen: string[] = [];
    for (let offset = 0; offset < 70; offset += 10) {
      const page = await index.browse('packages', { offset, limit: 10 });
      t.is(page.total, 57);
      t.is(page.points.length, Math.max(0, Math.min(10, 57 - offset)));
      seen.push(...page.points.map((p) => p.id));
    }
    t.deepEqual(seen, points.map((p) => p.id).sort());
    const again = await index.browse('packages', { offset: 20, limit: 5 });
    t.deepEqual(
      again.points.map((p) => p.id),
      seen.slice(20, 25),
    );
    const byId = new Map(points.map((p) => [p.id, p.payload]));
    for (const p of again.points) t.deepEqual(p.payload, byId.get(p.id));
  });

  test(named('browse with text keeps the points whose text has that word, in any case'), async (t) => {
    const index = await setup(t);
    const random = seededRandom(37);
    await index.ensure('resources', 4);
    const texts = [
      'Monthly RAINFALL totals',
      'rainfall by station',
      'Annual Rainfall, 1990-2020',
      'Air quality',
      'Road traffic counts',
      'Population by age',
    ];
    const points = texts.map((text) => point(randomUnitVector(random, 4), { text }));
    await index.upsert('resources', points);
    const matching = points
      .slice(0, 3)
      .map((p) => p.id)
      .sort();
    const all = await index.browse('resources', { offset: 0, limit: 10, text: 'Rainfall' });
    t.is(all.total, 3);
    t.deepEqual(
      all.points.map((p) => p.id),
      matching,
    );
    const second = await index.browse('resources', { offset: 2, limit: 2, text: 'rainfall' });
    t.deepEqual(second, { total: 3, points: [{ id: matching[2], payload: points.find((p) => p.id === matching[2])!.payload }] });
    t.deepEqual(await index.browse('resources', { offset: 0, limit: 10, text: 'snowfall' }), { total: 0, points: [] });
  });

  test(named('stats count the points and report the dimensions'), async (t) => {
    const index = await setup(t);
    await index.ensure('packages', 4);
    t.like(await index.stats('packages'), { points: 0, dimensions: 4 });
    await index.upsert('packages', [point(unitVector([1, 0, 0, 0])), point(unitVector([0, 1, 0, 0])), point(unitVector([0, 0, 1, 0]))]);
    const stats = await index.stats('packages');
    t.like(stats, { points: 3, dimensions: 4 });
    t.true(stats.bytes === null || stats.bytes > 0);
  });

  test(named('the indexes are separate: the same id in packages and resources are two points'), async (t) => {
    const index = await setup(t);
    await index.ensure('packages', 4);
    await index.ensure('resources', 6);
    const id = randomUUID();
    const inPackages = point(unitVector([1, 0, 0, 0]), { text: 'the package' }, id);
    const inResources = point(unitVector([0, 0, 0, 0, 0, 1]), { text: 'the resource', resourceId: randomUUID() }, id);
    await index.upsert('packages', [inPackages]);
    await index.upsert('resources', [inResources]);
    t.deepEqual(await index.get('packages', id), { id, payload: inPackages.payload });
    t.deepEqual(await index.get('resources', id), { id, payload: inResources.payload });
    await index.deleteIds('packages', [id]);
    t.is(await index.get('packages', id), null);
    t.deepEqual(await index.get('resources', id), { id, payload: inResources.payload });
    const names: IndexName[] = ['packages', 'resources', 'contents'];
    t.deepEqual(await Promise.all(names.map(async (name) => (await index.stats(name)).points)), [0, 1, 0]);
  });
}
