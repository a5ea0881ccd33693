/**
 * A first start as on a fresh machine: `bin/almanac serve` with an empty cache, no TEMPORAL_CLI_PATH, no
 * `temporal` on PATH and no EMBEDDINGS_MODEL_PATH. It fetches the real Temporal CLI and the real model from
 * registries on loopback (the pinned binary re-packed as temporal.download's archive, which is not pinned
 * itself, and the hub's two files), comes up healthy, and turns semantic search on by itself; the second
 * start fetches nothing.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import * as tar from 'tar';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { DEFAULT_EMBEDDING_MODEL } from '../../src/provision/embedding-model.ts';
import { locateTemporalCli, TEMPORAL_CLI } from '../../src/provision/temporal-cli.ts';
import { refusedUrl, startFileServer } from '../helpers/file-server.ts';
import { freePort } from '../helpers/ports.ts';

const BIN = fileURLToPath(new URL('../../bin/almanac', import.meta.url));
const MODEL = DEFAULT_EMBEDDING_MODEL.id;
const DEADLINE_MS = 120_000;

test('a first start on an empty cache fetches the Temporal CLI and the model, is healthy, then semantic; the next start fetches nothing', async (t) => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'almanac-first-start-'));
  fs.chmodSync(work, 0o755);
  t.teardown(() => fs.rmSync(work, { recursive: true, force: true }));

  // The pinned binary (from the suite's cache, or fetched into it), packed as temporal.download ships it.
  const { provision } = loadConfig(process.env);
  const cli = await locateTemporalCli({ searchPath: '', ...provision }, createLogger('warn'));
  fs.mkdirSync(path.join(work, 'pack'));
  fs.copyFileSync(cli.path, path.join(work, 'pack', 'temporal'));
  const archive = path.join(work, 'temporal.tar.gz');
  await tar.create({ gzip: { level: 1 }, cwd: path.join(work, 'pack'), file: archive }, ['temporal']);
  const modelDir = path.join(process.env.EMBEDDINGS_MODEL_PATH!, MODEL);
  const registry = await startFileServer({
    [`/cli/archive/v${TEMPORAL_CLI.version}`]: (_req, res) => void fs.createReadStream(archive).pipe(res),
    ...Object.fromEntries(
      Object.keys(DEFAULT_EMBEDDING_MODEL.files).map((f) => [
        `/${MODEL}/resolve/main/${f}`,
        (_req, res) => void fs.createReadStream(path.join(modelDir, f)).pipe(res),
      ]),
    ),
  });
  t.teardown(registry.close);

  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        !/^(DATABASE_URL|TEMPORAL_|S3_|QDRANT_|RUN_WORKER|PUBLIC_URL|HOST|PORT|EMBEDDED_PG_PORT|ALMANAC_|LOG_LEVEL|EMBEDDINGS_)/.test(k),
    ),
  );
  const env = {
    ...inherited,
    PATH: (process.env.PATH ?? '')
      .split(path.delimiter)
      .filter((d) => d && !fs.existsSync(path.join(d, 'temporal')))
      .join(path.delimiter),
    HOST: '127.0.0.1',
    // Chosen by the process itself: a port picked here would stand free through the whole fetch, for any test beside it to take.
    PORT: '0',
    EMBEDDED_PG_PORT: String(await freePort()),
    TEMPORAL_DEV_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    ALMANAC_DATA_DIR: path.join(work, 'data'),
    ALMANAC_CACHE_DIR: path.join(work, 'cache'),
    PYPI_URL: await refusedUrl(),
    TEMPORAL_DOWNLOAD_URL: registry.url,
    HF_ENDPOINT: registry.url,
    MAVEN_URL: await refusedUrl(),
    LOG_LEVEL: 'info',
  };

  const first = startServe(env);
  t.teardown(() => first.kill());
  await first.until('healthy', async () => first.port() !== undefined && (await get(`${first.base()}/api/health`))?.status !== undefined);
  const base = first.base();
  t.true(first.said(`fetching the Temporal CLI ${TEMPORAL_CLI.version} (first start only)…`), first.describe());
  t.true(first.said(new RegExp(`^Temporal CLI ${TEMPORAL_CLI.version} ready in [\\d.]+ s \\(from temporal\\.download`)), first.describe());
  t.is((await get(`${base}/api/v1/site/settings`))?.features.semanticSearch, true);
  await first.until('semantic search', async () => (await get(`${base}/api/v1/packages?q=rainfall`))?.meta.semantic === 'on');
  t.true(first.said(/^embedding model ready in [\d.]+ s: semantic search is on$/), first.describe());
  t.is((await get(`${base}/api/health`))?.status, 'ok');
  t.deepEqual(fs.readdirSync(path.join(work, 'cache')).sort(), ['models', `temporal-cli-${TEMPORAL_CLI.version}`]);
  t.is(await first.stop(), 0);

  const requests = registry.hits.length;
  const second = startServe(env);
  t.teardown(() => second.kill());
  await second.until(
    'semantic search',
    async () => second.port() !== undefined && (await get(`${second.base()}/api/v1/packages?q=rainfall`))?.meta.semantic === 'on',
  );
  t.false(second.said(/fetching/), second.describe());
  t.is(registry.hits.length, requests);
  t.is(await second.stop(), 0);
});

async function get(url: string): Promise<any> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
  return res?.ok ? res.json() : undefined;
}

function startServe(env: NodeJS.ProcessEnv) {
  const child = spawn(BIN, ['serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const messages: string[] = [];
  let port: number | undefined;
  let stderr = '';
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop()!;
    for (const line of lines.filter(Boolean)) {
      const entry = JSON.parse(line);
      messages.push(entry.msg);
      if (entry.msg === 'Almanac is listening') port = entry.port;
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const describe = () => `log: ${messages.filter((m) => m !== 'request').join(' | ')}\nstderr: ${stderr}`;
  return {
    port: () => port,
    base: () => `http://127.0.0.1:${port}`,
    describe,
    said: (expected: string | RegExp) => messages.some((m) => (typeof expected === 'string' ? m === expected : expected.test(m))),
    async until(what: string, check: () => Promise<boolean>) {
      const deadline = Date.now() + DEADLINE_MS;
      while (!(await check())) {
        if (child.exitCode !== null) throw new Error(`serve exited (${child.exitCode}) before ${what}\n${describe()}`);
        if (Date.now() > deadline) throw new Error(`no ${what} within ${DEADLINE_MS / 1000} s\n${describe()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
    kill: () => child.exitCode === null && child.kill('SIGKILL'),
  };
}
