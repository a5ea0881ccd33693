/**
 * The one harness of the suite, the benchmarks and the history recorder: PostgreSQL, an in-memory
 * Temporal dev server and (on request) MinIO on free ports in a scratch folder, and the app on them.
 * Whatever started is stopped, in reverse, also when a later part fails to start.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startAlmanac, type RunningAlmanac } from '../../src/runtime/almanac.ts';
import { startEmbeddedPostgres } from '../../src/runtime/embedded-postgres.ts';
import { startMinio, type RunningMinio } from './minio.ts';
import { freePort } from './ports.ts';
import { minioBinary, startScratchTemporal } from './tools.ts';

export interface Engines {
  /** The scratch folder: the cluster's data, MinIO's, and the app's ALMANAC_DATA_DIR. */
  dir: string;
  pg: Awaited<ReturnType<typeof startEmbeddedPostgres>>;
  temporal: Awaited<ReturnType<typeof startScratchTemporal>>;
  minio?: RunningMinio;
  /** Runs `stop` first when the engines stop (the app on them, a pool). */
  onStop(stop: () => Promise<unknown>): void;
  stop(): Promise<void>;
}

export async function startEngines(
  label: string,
  log: Logger,
  opts: { minio?: boolean; postgresSettings?: Record<string, string>; keptDir?: string } = {},
): Promise<Engines> {
  // A kept folder (a bench's loaded catalog) is reused as it is and left behind; a scratch one goes.
  const dir = opts.keptDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), `almanac-${label}-`)));
  await fs.mkdir(dir, { recursive: true });
  // mkdtemp makes a 0700 folder; PostgreSQL runs as its own user when we are root and must reach inside.
  await fs.chmod(dir, 0o755);
  const stack: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const part of stack.splice(0).reverse()) await part().catch((err) => log.error({ err }, 'stopping an engine failed'));
    if (!opts.keptDir) await fs.rm(dir, { recursive: true, force: true });
  };
  try {
    // Provisioning says what it fetches (once per machine) whatever the engines' own log level.
    const progress = createLogger('info');
    const minio = opts.minio ? await startMinio(await minioBinary(progress), path.join(dir, 'minio')) : undefined;
    if (minio) stack.push(() => minio.stop());
    const pg = await startEmbeddedPostgres(path.join(dir, 'pg'), await freePort(), log, {
      settings: opts.postgresSettings,
      // A kept folder's cluster left running by a run that was killed is stopped, not joined on its old port.
      takeOver: Boolean(opts.keptDir),
    });
    stack.push(() => pg.stop());
    const temporal = await startScratchTemporal(progress);
    stack.push(() => temporal.stop());
    return { dir, pg, temporal, minio, onStop: (part) => stack.push(part), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * The app on the engines, in a database of its own, with its worker, listening on a free port (its
 * PUBLIC_URL), with a sysadmin `bench`; `env` adds or overrides settings. Stopped with the engines.
 */
export async function startAppOn(engines: Engines, env: Record<string, string>, log: Logger): Promise<RunningAlmanac> {
  await engines.pg.ensureDatabase('bench');
  const port = await freePort();
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: log.level,
    ALMANAC_DATA_DIR: engines.dir,
    DATABASE_URL: engines.pg.url('bench'),
    TEMPORAL_ADDRESS: engines.temporal.address,
    RUN_WORKER: 'true',
    ALMANAC_ADMIN_USERNAME: 'bench',
    ALMANAC_ADMIN_PASSWORD: 'bench-password-1',
    ALMANAC_ADMIN_EMAIL: 'bench@example.org',
    ...(engines.minio
      ? {
          S3_ENDPOINT: engines.minio.endpoint,
          S3_ACCESS_KEY: engines.minio.accessKey,
          S3_SECRET_KEY: engines.minio.secretKey,
          S3_BUCKET: 'bench',
        }
      : {}),
    ...env,
  });
  const almanac = await startAlmanac(config, log);
  engines.onStop(() => almanac.stop());
  return almanac;
}

/**
 * Another app on the same engines with a database, data folder and task queue of its own, named `name`:
 * a second catalog beside the first (one harvesting the other, or the same load under other settings).
 */
export async function startOtherAppOn(engines: Engines, name: string, env: Record<string, string>, log: Logger): Promise<RunningAlmanac> {
  await engines.pg.ensureDatabase(`bench_${name}`);
  return startAppOn(
    engines,
    {
      TEMPORAL_TASK_QUEUE: `bench-${name}`,
      DATABASE_URL: engines.pg.url(`bench_${name}`),
      ALMANAC_DATA_DIR: path.join(engines.dir, name),
      ...env,
    },
    log,
  );
}

/** An API token of the app's sysadmin `bench` (logged in with the session cookie, as a person would). */
export async function benchToken(almanac: RunningAlmanac): Promise<string> {
  const base = `${almanac.url}/api/v1`;
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: 'bench', password: 'bench-password-1' }),
  });
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const created = await fetch(`${base}/api-tokens`, {
    method: 'POST',
    headers: { cookie, 'Content-Type': 'application/json', Origin: almanac.url },
    body: JSON.stringify({ name: 'bench' }),
  });
  return (await created.json()).token;
}
