import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db.ts';
import { createLogger } from '../../src/logger.ts';
import { bytesToVector, contentHash, embedCached, loadVectors, vectorToBytes } from '../../src/search/embeddings/cache.ts';
import { createEmbeddingProvider } from '../../src/search/embeddings/create.ts';
import { LocalEmbeddingProvider } from '../../src/search/embeddings/local.ts';
import { OpenAIEmbeddingProvider } from '../../src/search/embeddings/openai.ts';
import { EmbeddingsUnavailable, type EmbeddingProvider } from '../../src/search/embeddings/provider.ts';

// The real model, which test/run.ts puts in the cache (or finds there) and names in EMBEDDINGS_MODEL_PATH.
const MODEL_PATH = process.env.EMBEDDINGS_MODEL_PATH!;
const log = createLogger('silent');
const MODEL = 'Xenova/all-MiniLM-L6-v2';

const config = loadConfig({ EMBEDDINGS_MODEL_PATH: MODEL_PATH, EMBEDDINGS_BATCH_SIZE: '32', ALMANAC_DATA_DIR: os.tmpdir() });
const local = createEmbeddingProvider(config.embeddings, log) as LocalEmbeddingProvider;

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i], 0);
const norm = (v: Float32Array) => Math.sqrt(dot(v, v));

/** The real provider, recording what it was asked to embed (and, optionally, under another model name). */
function counting(inner: EmbeddingProvider, model = inner.model) {
  const calls: string[][] = [];
  const provider: EmbeddingProvider = {
    model,
    dimensions: () => inner.dimensions(),
    embed: (texts) => {
      calls.push(texts);
      return inner.embed(texts);
    },
    healthy: () => inner.healthy(),
    close: async () => {},
  };
  return { provider, calls };
}

let orm: MikroORM;
let admin: pg.Client;
const database = `almanac_embeddings_${Date.now()}`;
test.before(async () => {
  admin = new pg.Client({ connectionString: process.env.TEST_PG_URL });
  await admin.connect();
  await admin.query(`create database ${database}`);
  orm = await openDatabase(process.env.TEST_PG_URL!.replace(/\/postgres$/, `/${database}`));
  await orm.getMigrator().up();
});
test.after.always(async () => {
  await local.close();
  await orm?.close();
  await admin?.query(`drop database if exists ${database}`);
  await admin?.end();
});

test('the default local model gives 384 unit-length dimensions from its int8 ONNX file', async (t) => {
  t.is(config.embeddings.provider, 'local');
  t.is(local.model, MODEL);
  t.is(await local.dimensions(), 384);
  t.is(local.loadedFile, 'onnx/model_quantized.onnx');
  const [vector] = await local.embed(['Road traffic accidents by county, 2010-2024']);
  t.is(vector.length, 384);
  t.true(Math.abs(norm(vector) - 1) < 1e-4, `norm ${norm(vector)}`);
  t.true(await local.healthy());
});

test('texts about the same thing are closer than texts about different things', async (t) => {
  const [crashes, collisions, budget] = await local.embed(['car crashes', 'traffic collision statistics', 'hospital budget']);
  t.true(dot(crashes, collisions) > dot(crashes, budget) + 0.15, `${dot(crashes, collisions)} vs ${dot(crashes, budget)}`);
  const [air, pollution, football] = await local.embed([
    'air quality measurements',
    'pollution levels of PM2.5 and NO2',
    'football results',
  ]);
  t.true(dot(air, pollution) > dot(air, football) + 0.15);
});

test('a list longer than one batch comes back in input order', async (t) => {
  const topics = [
    'rainfall',
    'school enrolment',
    'bus timetables',
    'crime reports',
    'energy prices',
    'bird counts',
    'hospital waiting times',
  ];
  const texts = Array.from({ length: 75 }, (_, i) => `Dataset ${i}: yearly ${topics[i % topics.length]} for district ${i}`);
  const batched = await local.embed(texts);
  t.is(batched.length, texts.length);
  // Each text alone must be nearest to its own place in the batched answer (int8 activations are
  // quantized per batch, so the numbers differ slightly; the order must not).
  for (const i of [0, 1, 31, 32, 33, 63, 64, 74]) {
    const [alone] = await local.embed([texts[i]]);
    const nearest = batched.map((v) => dot(v, alone)).reduce((best, s, j, all) => (s > all[best] ? j : best), 0);
    t.is(nearest, i);
    t.true(dot(batched[i], alone) > 0.98);
  }
  t.deepEqual(await local.embed([]), []);
});

test('concurrent first calls all wait for the same load and get their vectors', async (t) => {
  const provider = new LocalEmbeddingProvider({ model: MODEL, modelPath: MODEL_PATH, cacheDir: os.tmpdir(), batchSize: 4 });
  t.teardown(() => provider.close());
  const [a, b, dims] = await Promise.all([provider.embed(['one']), provider.embed(['two', 'three']), provider.dimensions()]);
  t.is(a.length + b.length, 3);
  t.is(dims, 384);
});

test('the model runs in its own thread: the event loop keeps turning while a batch is embedded', async (t) => {
  await local.dimensions();
  const texts = Array.from(
    { length: 64 },
    (_, i) => `${'A long description of a dataset about rivers and their floods. '.repeat(12)} ${i}`,
  );
  let turns = 0;
  let turning = true;
  const spin = () => {
    turns++;
    if (turning) setImmediate(spin);
  };
  setImmediate(spin);
  await local.embed(texts);
  turning = false;
  // In the main thread, ONNX Runtime's synchronous run would let the loop turn only between batches (2 here).
  t.true(turns > 50, `the event loop turned ${turns} times`);
});

test('a model thread that dies fails the batch it was running as EmbeddingsUnavailable, and the next call starts a new one', async (t) => {
  const provider = new LocalEmbeddingProvider({ model: MODEL, modelPath: MODEL_PATH, cacheDir: os.tmpdir(), batchSize: 8 });
  t.teardown(() => provider.close());
  await provider.dimensions();
  const thread = await (provider as unknown as { loading: Promise<{ close(): Promise<void>; waiting: Map<number, unknown> }> }).loading;
  const running = provider.embed(Array.from({ length: 64 }, (_, i) => `text number ${i} `.repeat(20)));
  while (thread.waiting.size === 0) await new Promise((r) => setImmediate(r)); // its first batch is in the thread
  await thread.close();
  await t.throwsAsync(running, { instanceOf: EmbeddingsUnavailable, message: /embedding thread was closed/ });
  const [vector] = await provider.embed(['a new thread']);
  t.is(vector!.length, 384);
});

test('a missing model is EmbeddingsUnavailable naming the folder and files, and a later call tries again', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'almanac-no-model-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const provider = new LocalEmbeddingProvider({ model: MODEL, modelPath: dir, cacheDir: dir, batchSize: 32 });
  t.teardown(() => provider.close());
  const error = await t.throwsAsync(provider.embed(['x']), { instanceOf: EmbeddingsUnavailable });
  t.true(error.message.includes(path.join(dir, MODEL)), error.message);
  t.true(error.message.includes('config.json') && error.message.includes('onnx/model_quantized.onnx'), error.message);
  t.true(error.message.includes('EMBEDDINGS_MODEL_PATH'), error.message);
  t.false(await provider.healthy());

  await fs.mkdir(path.join(dir, 'Xenova'));
  await fs.symlink(path.join(MODEL_PATH, MODEL), path.join(dir, MODEL));
  const [vector] = await provider.embed(['x']);
  t.is(vector.length, 384);
});

test('a broken model file is EmbeddingsUnavailable, not a crash', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'almanac-bad-model-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const modelDir = path.join(dir, MODEL);
  await fs.mkdir(path.join(modelDir, 'onnx'), { recursive: true });
  for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json'])
    await fs.copyFile(path.join(MODEL_PATH, MODEL, f), path.join(modelDir, f));
  await fs.writeFile(path.join(modelDir, 'onnx/model.onnx'), 'not an onnx file');
  const provider = new LocalEmbeddingProvider({ model: MODEL, modelPath: dir, cacheDir: dir, batchSize: 32 });
  t.teardown(() => provider.close());
  const error = await t.throwsAsync(provider.dimensions(), { instanceOf: EmbeddingsUnavailable });
  t.true(error.message.startsWith(`could not load embedding model ${MODEL} from ${modelDir}`), error.message);
});

test('vectors are stored as float32 little-endian and read back exactly', (t) => {
  const vector = Float32Array.from([1, -2.5, 0.1, 3.4e38]);
  const bytes = vectorToBytes(vector);
  t.deepEqual([...bytes.subarray(0, 4)], [0x00, 0x00, 0x80, 0x3f]);
  t.deepEqual(bytesToVector(bytes), vector);
  t.throws(() => bytesToVector(new Uint8Array(6)));
  t.is(contentHash('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});

test('embedCached embeds each new text once, then serves it from the table', async (t) => {
  const { provider, calls } = counting(local);
  const em = orm.em.fork();
  const first = await embedCached(em, provider, ['census 2021 households', 'river levels', 'census 2021 households']);
  t.deepEqual(calls, [['census 2021 households', 'river levels']]);
  t.deepEqual(first[0], first[2]);
  t.true(dot(first[0], (await local.embed(['census 2021 households']))[0]) > 0.98);

  const second = await embedCached(orm.em.fork(), provider, ['river levels', 'tree planting', 'census 2021 households']);
  t.deepEqual(calls.slice(1), [['tree planting']]);
  t.deepEqual(second[0], first[1]);
  t.deepEqual(second[2], first[0]);

  t.deepEqual(await embedCached(orm.em.fork(), provider, ['tree planting', 'river levels']), [second[1], first[1]]);
  t.is(calls.length, 2);

  const stored = await loadVectors(orm.em.fork(), MODEL, [contentHash('river levels'), contentHash('never embedded')]);
  t.deepEqual([...stored.keys()], [contentHash('river levels')]);
  t.deepEqual(stored.get(contentHash('river levels')), first[1]);
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute(`select count(*)::int as n, min(dimensions) as dims, min(length(vector)) as bytes from embeddings where model = ?`, [MODEL]);
  t.deepEqual(rows, [{ n: 3, dims: 384, bytes: 384 * 4 }]);
});

test('embedCached stores what it embedded a chunk at a time, so a retry after a failure embeds only the rest', async (t) => {
  const texts = Array.from({ length: 300 }, (_, i) => `resumable sync text number ${i}`);
  const { provider, calls } = counting(local, 'resume-test-model');
  // The second chunk fails, as a sync that ran out of time would.
  const failing: EmbeddingProvider = {
    ...provider,
    embed: (batch) => (calls.length === 1 ? Promise.reject(new Error('out of time')) : provider.embed(batch)),
  };
  await t.throwsAsync(embedCached(orm.em.fork(), failing, texts), { message: 'out of time' });
  t.is(calls.length, 1);
  const kept = await loadVectors(orm.em.fork(), 'resume-test-model', texts.map(contentHash));
  t.is(kept.size, calls[0]!.length);
  t.true(kept.size > 0 && kept.size < texts.length);

  const vectors = await embedCached(orm.em.fork(), provider, texts);
  t.deepEqual(calls[1], texts.slice(kept.size), 'the retry embeds only what the failed attempt had not stored');
  t.is(vectors.length, texts.length);
  t.deepEqual(vectors[0], kept.get(contentHash(texts[0]!)));
});

test('a different model name keeps its own rows and embeds again', async (t) => {
  const texts = ['bicycle counts on bridges', 'parking fines'];
  const a = counting(local, 'test/model-a');
  const b = counting(local, 'test/model-b');
  await embedCached(orm.em.fork(), a.provider, texts);
  await embedCached(orm.em.fork(), b.provider, texts);
  await embedCached(orm.em.fork(), a.provider, texts);
  t.is(a.calls.length, 1);
  t.is(b.calls.length, 1);
  const counts = await orm.em
    .fork()
    .getConnection()
    .execute(
      `select model, count(*)::int as n, min(dimensions) as dims from embeddings where model like 'test/model-%' group by model order by model`,
    );
  t.deepEqual(counts, [
    { model: 'test/model-a', n: 2, dims: 384 },
    { model: 'test/model-b', n: 2, dims: 384 },
  ]);
});

test('an empty list needs neither the database nor the provider', async (t) => {
  const { provider, calls } = counting(local);
  t.deepEqual(await embedCached(orm.em.fork(), provider, []), []);
  t.is(calls.length, 0);
});

// A stand-in for Ollama/vLLM/TEI that computes real vectors with the local model, answering out of order
// and unnormalized so that the client's sorting and normalizing are exercised.
interface FakeServer {
  url: string;
  requests: { path: string; authorization?: string; body: { model: string; input: string[] } }[];
  close(): Promise<void>;
}
async function startOpenAIServer(options: { apiKey?: string; status?: number; hang?: boolean } = {}): Promise<FakeServer> {
  const requests: FakeServer['requests'] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString());
    requests.push({ path: req.url!, authorization: req.headers.authorization, body });
    if (options.hang) return;
    const reply = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') return reply(404, { error: { message: `no route ${req.url}` } });
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return reply(401, { error: { message: `invalid api key ${req.headers.authorization}`, type: 'invalid_request_error' } });
    }
    if (options.status) return reply(options.status, { error: { message: 'model is still loading' } });
    const vectors = await local.embed(body.input);
    const data = vectors.map((v, index) => ({ object: 'embedding', index, embedding: [...v].map((x) => x * 3) })).reverse();
    reply(200, { object: 'list', data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test('the OpenAI-compatible client batches, sends the key, and returns unit vectors in input order', async (t) => {
  const server = await startOpenAIServer({ apiKey: 'sk-test-123' });
  t.teardown(() => server.close());
  const env = {
    EMBEDDINGS_PROVIDER: 'openai',
    EMBEDDINGS_URL: `${server.url}/v1/`,
    EMBEDDINGS_MODEL: 'all-minilm',
    EMBEDDINGS_API_KEY: 'sk-test-123',
    EMBEDDINGS_BATCH_SIZE: '2',
  };
  const openai = createEmbeddingProvider(loadConfig(env).embeddings, log)!;
  t.true(openai instanceof OpenAIEmbeddingProvider);
  const texts = ['car crashes', 'traffic collision statistics', 'hospital budget', 'school meals', 'bridge inspections'];
  const remote = await openai.embed(texts);
  // The server embedded each request's batch; the same batches here give the same numbers.
  const direct = [
    ...(await local.embed(texts.slice(0, 2))),
    ...(await local.embed(texts.slice(2, 4))),
    ...(await local.embed(texts.slice(4))),
  ];
  t.is(remote.length, 5);
  remote.forEach((v, i) => {
    t.true(Math.abs(norm(v) - 1) < 1e-5);
    t.true(dot(v, direct[i]) > 0.99999, `text ${i}: ${dot(v, direct[i])}`);
  });
  t.deepEqual(
    server.requests.map((r) => r.body.input.length),
    [2, 2, 1],
  );
  t.true(
    server.requests.every((r) => r.path === '/v1/embeddings' && r.authorization === 'Bearer sk-test-123' && r.body.model === 'all-minilm'),
  );
  t.is(await openai.dimensions(), 384);
});

test('the OpenAI-compatible client takes a URL without /v1 and sends no Authorization without a key', async (t) => {
  const server = await startOpenAIServer();
  t.teardown(() => server.close());
  const openai = new OpenAIEmbeddingProvider({ url: server.url, model: 'm', batchSize: 32 });
  t.is((await openai.embed(['one']))[0].length, 384);
  t.is(server.requests[0].path, '/v1/embeddings');
  t.is(server.requests[0].authorization, undefined);
});

test('a refused key is EmbeddingsUnavailable with the status and the server message, never the key', async (t) => {
  const server = await startOpenAIServer({ apiKey: 'right-key' });
  t.teardown(() => server.close());
  const openai = new OpenAIEmbeddingProvider({ url: server.url, model: 'm', apiKey: 'wrong-key-0123456789', batchSize: 32 });
  const error = await t.throwsAsync(openai.embed(['x']), { instanceOf: EmbeddingsUnavailable });
  t.true(error.message.includes('401'), error.message);
  t.true(error.message.includes('invalid api key'), error.message);
  t.false(error.message.includes('wrong-key-0123456789'), error.message);
});

test('a server error is EmbeddingsUnavailable with its status, and healthy() asks at most every 30 s', async (t) => {
  const server = await startOpenAIServer({ status: 503 });
  t.teardown(() => server.close());
  const openai = new OpenAIEmbeddingProvider({ url: server.url, model: 'm', batchSize: 32 });
  const error = await t.throwsAsync(openai.embed(['x']), { instanceOf: EmbeddingsUnavailable });
  t.regex(error.message, /answered 503 .*model is still loading/);
  const before = server.requests.length;
  t.false(await openai.healthy());
  t.false(await openai.healthy());
  t.is(server.requests.length, before + 1);
});

test('an unreachable or silent server is EmbeddingsUnavailable within the timeout', async (t) => {
  const silent = await startOpenAIServer({ hang: true });
  t.teardown(() => silent.close());
  const slow = new OpenAIEmbeddingProvider({ url: silent.url, model: 'm', batchSize: 32, timeoutMs: 300 });
  const started = Date.now();
  const timeout = await t.throwsAsync(slow.embed(['x']), { instanceOf: EmbeddingsUnavailable });
  t.true(Date.now() - started < 5_000);
  t.regex(timeout.message, /no answer within 300 ms/);

  const closed = await startOpenAIServer();
  await closed.close();
  const gone = new OpenAIEmbeddingProvider({ url: closed.url, model: 'm', batchSize: 32 });
  const refused = await t.throwsAsync(gone.embed(['x']), { instanceOf: EmbeddingsUnavailable });
  t.regex(refused.message, /unreachable: ECONNREFUSED/);
  t.false(await gone.healthy());
});

test('EMBEDDINGS_PROVIDER=none gives no provider', (t) => {
  t.is(createEmbeddingProvider(loadConfig({ EMBEDDINGS_PROVIDER: 'none' }).embeddings, log), null);
});
