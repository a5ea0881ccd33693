import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { QUERY_LOCK_SPACE } from '../../src/query/caller-lock.ts';
import { startAlmanac, type RunningAlmanac } from '../../src/runtime/almanac.ts';
import { ApiClient, type Auth, type TestUser } from './client.ts';
import { freePort } from './ports.ts';

export const ADMIN = { username: 'root', password: 'root-password-1', email: 'root@example.org' };

export interface TestApp {
  url: string;
  api: ApiClient;
  almanac: RunningAlmanac;
  taskQueue: string;
  /** Every log line the app wrote, as raw JSON text. */
  logs: string[];
  /** An API token of the initial sysadmin. */
  adminToken: string;
  /** Calls as the initial sysadmin, with that token. */
  sysadmin: Auth;
  stop(): Promise<void>;
}

/** The env of an app with the real local embedding model, which test/run.ts finds or fetches. */
export function semanticEnv(): Record<string, string> {
  const modelPath = process.env.EMBEDDINGS_MODEL_PATH;
  if (!modelPath) throw new Error('EMBEDDINGS_MODEL_PATH is not set: run the suite with `npm test`, which provides the model');
  return { EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_MODEL_PATH: modelPath };
}

/**
 * Starts the real app in this process, on its own fresh database in the suite's PostgreSQL and its own
 * task queue on the suite's Temporal server, listening on a free port. One per test file.
 */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const baseUrl = process.env.TEST_PG_URL;
  const temporalAddress = process.env.TEST_TEMPORAL_ADDRESS;
  if (!baseUrl || !temporalAddress) throw new Error('run the suite with `npm test`, which starts PostgreSQL and Temporal');

  const suffix = randomBytes(6).toString('hex');
  const database = `almanac_test_${suffix}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database ${database}`);
  await admin.end();

  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'almanac-app-'));
  const taskQueue = `almanac-test-${suffix}`;
  // A known port, so PUBLIC_URL (which presigned upload URLs and download links use) is the real address.
  const port = String(await freePort());
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: port,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ALMANAC_DATA_DIR: dataDir,
    DATABASE_URL: baseUrl.replace(/\/postgres$/, `/${database}`),
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    RUN_WORKER: 'true',
    LOG_LEVEL: 'debug',
    ALMANAC_ADMIN_USERNAME: ADMIN.username,
    ALMANAC_ADMIN_PASSWORD: ADMIN.password,
    ALMANAC_ADMIN_EMAIL: ADMIN.email,
    // Semantic search is tested with the real model where it is the subject (semanticEnv()); elsewhere
    // datasets need not pay for embeddings, and search answers keyword-only.
    EMBEDDINGS_PROVIDER: 'none',
    // Every response of the suite is checked against the route's OpenAPI schema (a mismatch is a 500).
    ALMANAC_SELF_CHECK: 'true',
    ALMANAC_SELF_CHECK_REPORT: process.env.ALMANAC_SELF_CHECK_REPORT ?? '',
    // The suite's one bundle of the workflows (test/run.ts), so no test worker runs webpack.
    ALMANAC_WORKFLOW_BUNDLE: process.env.ALMANAC_WORKFLOW_BUNDLE ?? '',
    ...env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const almanac = await startAlmanac(config, createLogger(config.logLevel, sink));
  const api = new ApiClient(almanac.url);
  const login = await api.login(ADMIN.username, ADMIN.password);
  const token = await api.post('/api/v1/api-tokens', { name: 'test admin' }, { cookie: login.cookie });
  return {
    url: almanac.url,
    api,
    almanac,
    taskQueue,
    logs,
    adminToken: token.body.token,
    sysadmin: { token: token.body.token },
    async stop() {
      await almanac.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
      // A response that strayed from its schema fails the file, even where the test did not look at it.
      const failures = logs
        .filter((l) => /"type":"(ResponseMismatch|PolicyNotConsulted)"/.test(l))
        .map((l) => JSON.parse(l).err.message as string);
      if (failures.length)
        throw new Error(`self-checks failed (response schemas, authorization audit):\n${[...new Set(failures)].join('\n')}`);
    },
  };
}

/** The users a test file's tests share, by role: `people.editor`. */
export type People<Role extends string> = Record<Role, TestUser>;

/**
 * Starts a test app with the users a file's tests share, registered side by side (password hashing is
 * deliberately slow) as `<prefix>-<role>`: `('ls', ['otherEditor'])` registers `ls-other-editor`.
 */
export async function startTestAppWithPeople<Role extends string>(
  prefix: string,
  roles: readonly Role[],
): Promise<{ app: TestApp; people: People<Role> }> {
  const app = await startTestApp();
  const kebab = (role: string) => role.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  const users = await Promise.all(roles.map((role) => app.api.newUser(`${prefix}-${kebab(role)}`)));
  return { app, people: Object.fromEntries(roles.map((role, i) => [role, users[i]])) as People<Role> };
}

/** Polls `check` until it holds (every 50 ms, for at most `timeoutMs`): synchronisation on a condition, never a sleep. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Waits until every index holds a vector for each of its documents (drift 0): a dataset made through
 * POST /packages is found by keywords at once and by meaning once the vector backlog has embedded it.
 */
export async function vectorsCaughtUp(app: TestApp, timeoutMs = 60_000) {
  await until(
    'the vector backlog embedded every document',
    async () => {
      const stats = await app.api.get('/api/v1/admin/search/stats', app.sysadmin);
      return Object.values(stats.body.indexes as Record<string, { drift: number | null }>).every((index) => index.drift === 0);
    },
    timeoutMs,
  );
}

/** True while a query of some caller runs: it holds that caller's advisory lock (src/query/caller-lock.ts). */
export async function queryRunning(app: TestApp): Promise<boolean> {
  const [row] = await app.almanac.services.orm.em.fork().execute<{ n: number }[]>(
    `select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database
      where l.locktype = 'advisory' and l.granted and l.classid = ? and d.datname = current_database()`,
    [QUERY_LOCK_SPACE],
  );
  return row!.n > 0;
}
