import test from 'ava';
import { semanticEnv, startTestApp, type TestApp } from '../helpers/app.ts';
import { freePort } from '../helpers/ports.ts';
import type { Auth } from '../helpers/client.ts';

/**
 * Without its model, search degrades and never breaks: publishing works, search answers from keywords
 * and says `semantic: "unavailable"`, health reports the component, and the stats show what is missing.
 */

const API = '/api/v1';
let app: TestApp;
let admin: Auth;

test.before(async () => {
  app = await startTestApp({ EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_MODEL_PATH: '/nonexistent/almanac-models' });
  admin = { token: app.adminToken };
  await app.api.post(`${API}/organizations`, { name: 'degraded-org' }, admin);
  const created = await app.api.post(
    `${API}/packages`,
    { name: 'tidal-gauges', title: 'Tidal Gauge Readings', ownerOrg: 'degraded-org', licenseId: 'cc-by-4.0' },
    admin,
  );
  if (created.status !== 201) throw new Error(created.text);
});
test.after.always(async () => app?.stop());

test('search answers from keywords and says the semantic half is unavailable', async (t) => {
  const reply = await app.api.get(`${API}/packages?q=tidal+gauge`);
  t.is(reply.status, 200, reply.text);
  t.deepEqual(reply.body.meta, { semantic: 'unavailable' });
  t.deepEqual(
    reply.body.results.map((r: { name: string }) => r.name),
    ['tidal-gauges'],
  );
  t.true(reply.body.results[0].match.keyword);
  t.deepEqual(reply.body.results[0].match.semantic, []);
  const paraphrase = await app.api.get(`${API}/packages?q=sea+level+sensors`);
  t.is(paraphrase.status, 200);
  t.is(paraphrase.body.count, 0);
});

test('health reports embeddings down and the service degraded; the vector index is up', async (t) => {
  const reply = await app.api.get('/api/health');
  t.is(reply.status, 200);
  t.like(reply.body, { status: 'degraded', components: { database: 'ok', embeddings: 'down', vectors: 'ok' } });
});

test('the stats show the points the database holds and the vectors missing', async (t) => {
  const reply = await app.api.get(`${API}/admin/search/stats`, admin);
  t.is(reply.status, 200, reply.text);
  t.like(reply.body, {
    model: { name: 'Xenova/all-MiniLM-L6-v2', available: false },
    indexes: { packages: { documents: 1, embedded: 0, vectors: 0, drift: 1 } },
  });
});

test('with the vector index down (Qdrant unreachable) publishing works and search is keyword-only, said so', async (t) => {
  const down = await startTestApp({ ...semanticEnv(), QDRANT_URL: `http://127.0.0.1:${await freePort()}` });
  try {
    const auth = { token: down.adminToken };
    await down.api.post(`${API}/organizations`, { name: 'qdrant-down-org' }, auth);
    const created = await down.api.post(
      `${API}/packages`,
      { name: 'ferry-timetables', title: 'Ferry Timetables', ownerOrg: 'qdrant-down-org', licenseId: 'cc-by-4.0' },
      auth,
    );
    t.is(created.status, 201, created.text);
    const reply = await down.api.get(`${API}/packages?q=ferry`);
    t.is(reply.status, 200, reply.text);
    t.deepEqual(reply.body.meta, { semantic: 'unavailable' });
    t.deepEqual(
      reply.body.results.map((r: { name: string }) => r.name),
      ['ferry-timetables'],
    );
    const health = await down.api.get('/api/health');
    t.like(health.body, { status: 'degraded', components: { database: 'ok', vectors: 'down', embeddings: 'ok' } });
    const stats = await down.api.get(`${API}/admin/search/stats`, auth);
    t.is(stats.status, 200, stats.text);
    t.like(stats.body, {
      vectorIndex: { kind: 'qdrant', available: false },
      indexes: { packages: { documents: 1, embedded: 1, vectors: null, drift: null } },
    });
  } finally {
    await down.stop();
  }
});
