/**
 * Start-up of the built service (`bin/almanac`), three figures, medians of BENCH_RUNS:
 * - first start: an empty data directory and an empty cache, no `temporal` on PATH: provisioning included
 *   (the Temporal CLI before the start, the embedding model in the background), to /api/health 200 and on
 *   to the first search answered with `meta.semantic: "on"`;
 * - warm start: the same directory and cache again, to healthy and to semantic on;
 * - worker start: `almanac worker` against a running PostgreSQL and Temporal, to "Temporal worker started".
 * BENCH_ALMANAC_ROOT runs another checkout's bin/almanac (an older commit, for before/after figures).
 * Set EMBEDDINGS_MODEL_PATH to measure with a model folder given instead of the cached or fetched one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../src/logger.ts';
import { startEmbeddedPostgres } from '../src/runtime/embedded-postgres.ts';
import { freePort } from '../test/helpers/ports.ts';
import { startScratchTemporal } from '../test/helpers/tools.ts';

const root = path.resolve(process.env.BENCH_ALMANAC_ROOT ?? '.');
const BIN = path.join(root, 'bin/almanac');
const DEADLINE_MS = 10 * 60_000;

/**
 * PATH without any folder that holds a `temporal`, so that a first start has to fetch it; BENCH_KEEP_PATH=1
 * keeps it whole (a checkout from before provisioning needs `temporal` on PATH).
 */
const pathWithoutTemporal = () =>
  (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => process.env.BENCH_KEEP_PATH === '1' || (dir && !fs.existsSync(path.join(dir, 'temporal'))))
    .join(path.delimiter);
function spawnAlmanac(args: string[], env: Record<string, string>): { child: ChildProcess; exited: Promise<unknown>; output: string[] } {
  const { TEMPORAL_CLI_PATH: _ignored, ...inherited } = process.env;
  const child = spawn(BIN, args, { env: { ...inherited, PATH: pathWithoutTemporal(), LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const keep = (chunk: Buffer) => output.push(...chunk.toString().split('\n').filter(Boolean));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { child, exited: new Promise((resolve) => child.once('exit', resolve)), output };
}

async function until(what: string, check: () => Promise<boolean>, child: ChildProcess, output: string[]) {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    if (await check()) return;
    if (child.exitCode !== null) throw new Error(`almanac exited with ${child.exitCode} before ${what}:\n${output.slice(-15).join('\n')}`);
    if (Date.now() > deadline) throw new Error(`no ${what} within ${DEADLINE_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** `serve` from spawn to healthy, then to a search with semantic on; stopped after. */
async function timeServe(dataDir: string, cacheDir: string) {
  const ports = { PORT: await freePort(), EMBEDDED_PG_PORT: await freePort(), TEMPORAL_DEV_PORT: await freePort(), TEMPORAL_UI_PORT: await freePort() };
  const base = `http://127.0.0.1:${ports.PORT}`;
  const started = performance.now();
  const { child, exited, output } = spawnAlmanac(['serve'], {
    ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
    ALMANAC_DATA_DIR: dataDir,
    ALMANAC_CACHE_DIR: cacheDir,
  });
  try {
    const ok = (url: string, test: (body: any) => boolean = () => true) =>
      fetch(url).then(
        async (r) => r.ok && test(await r.json()),
        () => false,
      );
    await until('a healthy /api/health', () => ok(`${base}/api/health`), child, output);
    const healthyMs = performance.now() - started;
    await until('a semantic search', () => ok(`${base}/api/v1/packages?q=rainfall`, (b) => b.meta?.semantic === 'on'), child, output);
    return { healthyMs, semanticMs: performance.now() - started };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** `worker` from spawn to its "Temporal worker started" line. */
async function timeWorker(databaseUrl: string, temporalAddress: string, cacheDir: string) {
  const started = performance.now();
  const { child, exited, output } = spawnAlmanac(['worker'], {
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: `bench-${Math.random().toString(36).slice(2)}`,
    ALMANAC_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'almanac-bench-worker-')),
    ALMANAC_CACHE_DIR: cacheDir,
  });
  try {
    await until('"Temporal worker started"', async () => output.some((l) => l.includes('Temporal worker started')), child, output);
    return performance.now() - started;
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const median = (xs: number[]) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);

export async function benchStartup(runs = 3) {
  const log = createLogger('warn');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'almanac-bench-startup-'));
  fs.chmodSync(work, 0o755);
  const first: Array<{ healthyMs: number; semanticMs: number }> = [];
  const warm: Array<{ healthyMs: number; semanticMs: number }> = [];
  const worker: number[] = [];
  const pg = await startEmbeddedPostgres(path.join(work, 'pg'), await freePort(), log);
  const temporal = await startScratchTemporal(log);
  try {
    await pg.ensureDatabase('bench_worker');
    for (let i = 0; i < runs; i++) {
      const dataDir = fs.mkdtempSync(path.join(work, 'data-'));
      // mkdtemp makes a 0700 folder; PostgreSQL runs as its own user when we are root and must reach inside.
      fs.chmodSync(dataDir, 0o755);
      const cacheDir = fs.mkdtempSync(path.join(work, 'cache-'));
      first.push(await timeServe(dataDir, cacheDir));
      warm.push(await timeServe(dataDir, cacheDir));
      worker.push(await timeWorker(pg.url('bench_worker'), temporal.address, cacheDir));
      console.error(`[startup] run ${i + 1}: first ${JSON.stringify(first.at(-1))}, warm ${JSON.stringify(warm.at(-1))}, worker ${Math.round(worker.at(-1)!)} ms`);
    }
  } finally {
    await temporal.stop();
    await pg.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
  return {
    root,
    runs,
    firstStartHealthyMs: median(first.map((r) => r.healthyMs)),
    firstStartSemanticMs: median(first.map((r) => r.semanticMs)),
    warmStartHealthyMs: median(warm.map((r) => r.healthyMs)),
    warmStartSemanticMs: median(warm.map((r) => r.semanticMs)),
    workerStartMs: median(worker),
  };
}
