/**
 * Start-up of the built service (`bin/almanac`), three figures, medians of BENCH_RUNS:
 * - first start: an empty data directory and an empty cache, no `temporal` on PATH: provisioning included
 *   (the Temporal CLI before the start, the embedding model in the background), to /api/health 200 and on
 *   to the first search answered with `meta.semantic: "on"`;
 * - warm start: the same directory and cache again, to healthy and to semantic on;
 * - worker start: `almanac worker` against a running PostgreSQL and Temporal, to "Temporal worker started".
 *
 * BENCH_BASELINE_ROOT names another checkout (an older commit, built as it builds itself) measured side by
 * side, run for run, and each figure is then printed as a ratio against it. A checkout from before
 * provisioning cannot fetch anything: it gets the Temporal CLI on its PATH and EMBEDDINGS_MODEL_PATH, so its
 * "first start" is an empty data directory with everything already installed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createLogger } from '../src/logger.ts';
import { freePort } from '../test/helpers/ports.ts';
import { startEngines } from '../test/helpers/engines.ts';
import { embeddingModelPath } from '../test/helpers/tools.ts';

const DEADLINE_MS = 10 * 60_000;

interface Subject {
  label: 'almanac' | 'baseline';
  bin: string;
  /** Settings every run of this checkout gets. */
  env: Record<string, string>;
}

/** PATH without any folder that holds a `temporal`, so that a first start has to fetch it. */
const pathWithoutTemporal = () =>
  (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir && !fs.existsSync(path.join(dir, 'temporal')))
    .join(path.delimiter);

function spawnAlmanac(subject: Subject, args: string[], env: Record<string, string>) {
  const { TEMPORAL_CLI_PATH: _cli, EMBEDDINGS_MODEL_PATH: _model, ...inherited } = process.env;
  const child = spawn(subject.bin, args, {
    env: { ...inherited, PATH: pathWithoutTemporal(), LOG_LEVEL: 'info', ...subject.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const keep = (chunk: Buffer) => output.push(...chunk.toString().split('\n').filter(Boolean));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
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
async function timeServe(subject: Subject, dataDir: string, cacheDir: string) {
  const ports = {
    PORT: await freePort(),
    EMBEDDED_PG_PORT: await freePort(),
    TEMPORAL_DEV_PORT: await freePort(),
    TEMPORAL_UI_PORT: await freePort(),
  };
  const base = `http://127.0.0.1:${ports.PORT}`;
  const started = performance.now();
  const { child, exited, output } = spawnAlmanac(subject, ['serve'], {
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
async function timeWorker(subject: Subject, databaseUrl: string, temporalAddress: string, work: string) {
  const started = performance.now();
  const { child, exited, output } = spawnAlmanac(subject, ['worker'], {
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: `bench-${Math.random().toString(36).slice(2)}`,
    ALMANAC_DATA_DIR: fs.mkdtempSync(path.join(work, 'worker-')),
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
const FIGURES = ['firstStartHealthyMs', 'firstStartSemanticMs', 'warmStartHealthyMs', 'warmStartSemanticMs', 'workerStartMs'] as const;
type Figures = Record<(typeof FIGURES)[number], number>;

export async function benchStartup(runs = 3) {
  const log = createLogger('warn');
  const engines = await startEngines('bench-startup', log);
  const { pg, temporal, dir: work } = engines;
  const subjects: Subject[] = [{ label: 'almanac', bin: path.resolve('bin/almanac'), env: {} }];
  if (process.env.BENCH_BASELINE_ROOT) {
    const pathWithCli = [path.dirname(temporal.cliPath), pathWithoutTemporal()].join(path.delimiter);
    subjects.push({
      label: 'baseline',
      bin: path.resolve(process.env.BENCH_BASELINE_ROOT, 'bin/almanac'),
      env: { PATH: pathWithCli, EMBEDDINGS_MODEL_PATH: await embeddingModelPath(log) },
    });
  }
  const samples = new Map(subjects.map((s) => [s.label, FIGURES.map(() => [] as number[])]));
  try {
    await pg.ensureDatabase('bench_worker');
    for (let i = 0; i < runs; i++) {
      for (const subject of subjects) {
        const dataDir = fs.mkdtempSync(path.join(work, 'data-'));
        // mkdtemp makes a 0700 folder; PostgreSQL runs as its own user when we are root and must reach inside.
        fs.chmodSync(dataDir, 0o755);
        const cacheDir = fs.mkdtempSync(path.join(work, 'cache-'));
        const first = await timeServe(subject, dataDir, cacheDir);
        const warm = await timeServe(subject, dataDir, cacheDir);
        const worker = await timeWorker(subject, pg.url('bench_worker'), temporal.address, work);
        const values = [first.healthyMs, first.semanticMs, warm.healthyMs, warm.semanticMs, worker];
        values.forEach((v, f) => samples.get(subject.label)![f]!.push(v));
        console.error(
          `[startup] run ${i + 1} ${subject.label}: ${FIGURES.map((name, f) => `${name} ${Math.round(values[f]!)}`).join(', ')}`,
        );
      }
    }
  } finally {
    await engines.stop();
  }
  const figures = (label: Subject['label']) =>
    Object.fromEntries(FIGURES.map((name, f) => [name, median(samples.get(label)![f]!)])) as Figures;
  const almanac = figures('almanac');
  if (!samples.has('baseline')) return { runs, ...almanac };
  const baseline = figures('baseline');
  // Time, so lower is better: the ratio is almanac's time over the baseline's.
  for (const name of FIGURES) {
    console.log(
      `ratio startup-${name.replace(/Ms$/, '')}: ${(almanac[name] / baseline[name]).toFixed(2)} (almanac ${almanac[name]} ms, baseline ${baseline[name]} ms)`,
    );
  }
  return { runs, almanac, baseline };
}
