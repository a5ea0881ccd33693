import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import type { Auth, Reply } from '../helpers/client.ts';
import { isProblem } from '../helpers/problem.ts';
import { uploadAndProcess } from '../helpers/pipeline.ts';

/**
 * The security corpus of POST /resources/{id}/query (issue 5, item 2; spec §4 query rules, DESIGN §4):
 * hostile SQL over HTTP against the real app. Each query is either refused (400 `query_not_select` or
 * `query_invalid`), or DuckDB runs it inside the limits (10,000 rows, 5 MB, 15 s → 408), and no answer
 * ever carries a file's content, the environment or an absolute path of the machine. The corpus runs
 * serially, as one caller (one query at a time per caller); afterwards the service answers normally.
 */

const V1 = '/api/v1';
const QUERY_DEADLINE_MS = 15_000;
/** The 15 s limit plus the per-query set-up, the HTTP round trip and a loaded CI machine. */
const WALL_CLOCK_MS = QUERY_DEADLINE_MS + 10_000;
const MAX_ROWS = 10_000;
const MAX_RESULT_BYTES = 5 * 1024 * 1024;

type User = Awaited<ReturnType<TestApp['api']['newUser']>>;

let app: TestApp;
let caller: User;
let resourceId: string;
let dataDir: string;

/** A file outside the sandbox with a secret in it: no query may ever show the secret. */
const SECRET = `almanac-canary-secret-${randomBytes(8).toString('hex')}`;
const CANARY_NAME = `almanac-canary-${randomBytes(6).toString('hex')}.csv`;
const CANARY = path.join('/tmp', CANARY_NAME);
let DATA_DIR_CANARY: string;
/** Where COPY / EXPORT try to write: nothing may ever appear there. */
const WRITE_TARGET = path.join('/tmp', `almanac-escape-${randomBytes(6).toString('hex')}`);

/** Five rows, typed columns, one name with a space and one non-ASCII name. */
const ROWS = 5;
const CSV = [
  'id,price,station name,année,active,day',
  '1,1.5,North Gate,2019,true,2024-01-05',
  '2,2.25,South Pier,2020,false,2024-02-10',
  '3,,Old Mill,2021,true,2024-03-15',
  '4,4.75,Quarry Road,2022,false,2024-04-20',
  '5,5.5,Harbour,2023,true,2024-05-25',
  '',
].join('\n');

test.before(async () => {
  app = await startTestApp();
  dataDir = app.almanac.services.config.dataDir;
  DATA_DIR_CANARY = path.join(dataDir, CANARY_NAME);
  await fs.writeFile(CANARY, `secret\n${SECRET}\n`);
  await fs.writeFile(DATA_DIR_CANARY, `secret\n${SECRET}\n`);

  caller = await app.api.newUser('query-security-caller');
  const admin: Auth = { token: app.adminToken };
  const org = await app.api.post(`${V1}/organizations`, { name: 'query-security-org' }, admin);
  if (org.status !== 201) throw new Error(`org: ${org.status} ${org.text}`);
  const member = await app.api.post(`${V1}/organizations/${org.body.name}/members`, { user: caller.id, role: 'editor' }, admin);
  if (member.status !== 201) throw new Error(`member: ${member.status} ${member.text}`);
  const dataset = await app.api.post(
    `${V1}/packages`,
    {
      name: 'query-security-ds',
      title: 'Query security',
      ownerOrg: org.body.name,
      licenseId: 'cc-by-4.0',
      private: false,
      resources: [{ urlType: 'upload', name: 'Stations', format: 'csv' }],
    },
    { token: caller.token },
  );
  if (dataset.status !== 201) throw new Error(`dataset: ${dataset.status} ${dataset.text}`);
  resourceId = dataset.body.resources[0].id;

  await uploadAndProcess(app.api, resourceId, CSV, { token: caller.token });
});

test.after.always(async () => {
  await fs.rm(CANARY, { force: true });
  await fs.rm(WRITE_TARGET, { recursive: true, force: true });
  await app?.stop();
});

// --- Helpers -------------------------------------------------------------------------------------

interface Answer extends Reply {
  ms: number;
}

async function query(sql: string, user: User = caller): Promise<Answer> {
  const started = Date.now();
  const reply = await app.api.post(`${V1}/resources/${resourceId}/query`, { sql }, { token: user.token });
  return { ...reply, ms: Date.now() - started };
}

/** Directories of this machine whose names must never come back, wherever they appear in an answer. */
const MACHINE_PATH = /(?:^|[^\w.~-])\/(?:tmp|work|root|home|etc|usr|var|proc|opt|srv|sys|dev|run|mnt)(?:\/|\b)/;

/**
 * Nothing of the machine in the answer: the canary, /etc/passwd, environment values, absolute paths.
 * `echoed` are strings of the caller's own SQL that an error may repeat: no news to the caller.
 */
function assertNothingLeaked(t: ExecutionContext, res: Answer, echoed: string[] = []) {
  const text = echoed.reduce((rest, own) => rest.split(own).join('<own>'), res.text);
  /** Where the leak is: a little of the answer either side of the first occurrence. */
  const around = (at: number) => text.slice(Math.max(0, at - 200), at + 120);
  const absent = (needle: string, what: string) => {
    const at = text.indexOf(needle);
    t.is(at, -1, `${what} came back: …${around(at)}…`);
  };
  absent(SECRET, 'the canary secret');
  absent('root:x:0:0', '/etc/passwd');
  absent(dataDir, "the app's data dir");
  for (const fragment of ['/tmp/', '/work', '/root']) absent(fragment, `"${fragment}"`);
  const match = MACHINE_PATH.exec(text);
  t.is(match, null, `an absolute path came back: …${around(match?.index ?? 0)}…`);
  const home = os.homedir();
  if (home.length > 1) absent(home, 'the home directory');
  for (const name of ['TEST_PG_URL', 'TEST_S3_SECRET_KEY', 'PATH']) {
    const value = process.env[name];
    if (value && value.length >= 6) absent(value, `the value of $${name}`);
  }
  t.true(text.length < 6 * 1024 * 1024, `the answer is ${text.length} bytes`);
}

/** Refused before or by DuckDB: 400 with one of the two query codes, a cleaned message, no leak. */
function assertRefused(t: ExecutionContext, res: Answer, codes: string[] = ['query_not_select', 'query_invalid'], echoed: string[] = []) {
  t.is(res.status, 400, res.text);
  t.is(res.headers.get('content-type'), 'application/problem+json');
  t.true(codes.includes(res.body?.code), `code ${res.body?.code} is not one of ${codes.join(', ')}: ${res.text}`);
  t.like(res.body, { type: `https://almanac.dev/problems/${res.body?.code}`, status: 400 });
  assertNothingLeaked(t, res, echoed);
}

/**
 * Either refused (also for needing more memory than a query may use), or run inside the limits (a 200 of at
 * most 10,000 rows and ~5 MB, or 408), with no leak.
 */
function assertContained(t: ExecutionContext, res: Answer) {
  t.true([200, 400, 408].includes(res.status), `unexpected status ${res.status}: ${res.text.slice(0, 500)}`);
  if (res.status === 400) t.true(['query_not_select', 'query_invalid', 'query_too_large'].includes(res.body?.code), res.text);
  if (res.status === 408) isProblem(t, res, 408, 'query_timeout');
  if (res.status === 200) {
    t.true(Array.isArray(res.body?.rows), res.text.slice(0, 500));
    t.true(res.body.rows.length <= MAX_ROWS, `${res.body.rows.length} rows`);
    t.is(res.body.rowCount, res.body.rows.length);
    t.true(Buffer.byteLength(res.text) < MAX_RESULT_BYTES + 512 * 1024, `the answer is ${Buffer.byteLength(res.text)} bytes`);
  }
  t.true(res.ms < WALL_CLOCK_MS, `the answer took ${res.ms} ms`);
  t.log(`${res.status} ${res.body?.code ?? ''} in ${res.ms} ms`);
  assertNothingLeaked(t, res);
}

/** One test per hostile query that must be refused outright. */
function refused(title: string, sql: string | (() => string), codes?: string[], echoed?: string[]) {
  test.serial(title, async (t) => {
    t.timeout(60_000);
    assertRefused(t, await query(typeof sql === 'string' ? sql : sql()), codes, echoed);
  });
}

/** One test per hostile query DuckDB may legitimately run: contained, whatever it does. */
function contained(title: string, sql: string | (() => string)) {
  test.serial(title, async (t) => {
    t.timeout(60_000);
    assertContained(t, await query(typeof sql === 'string' ? sql : sql()));
  });
}

const q = (value: string) => `'${value.replaceAll("'", "''")}'`;

// --- Reading files ---------------------------------------------------------------------------------

refused('read_csv of the canary file is refused', () => `SELECT * FROM read_csv(${q(CANARY)})`);
refused('read_csv_auto of the canary file is refused', () => `SELECT * FROM read_csv_auto(${q(CANARY)})`);
refused('read_csv of a canary in the app data dir is refused', () => `SELECT * FROM read_csv(${q(DATA_DIR_CANARY)})`);
refused('read_csv of /etc/passwd is refused', `SELECT * FROM read_csv('/etc/passwd', sep=':', header=false)`);
refused('read_text of /etc/passwd is refused', `SELECT content FROM read_text('/etc/passwd')`);
refused('read_text of the canary file is refused', () => `SELECT content FROM read_text(${q(CANARY)})`);
// DuckDB's message repeats the caller's own URL (the cleaner leaves `file://` URLs alone): no leak.
refused('read_text with a file:// URL is refused', `SELECT content FROM read_text('file:///etc/passwd')`, undefined, [
  'file:///etc/passwd',
]);
refused('read_blob of the canary file is refused', () => `SELECT content FROM read_blob(${q(CANARY)})`);
refused('read_json of the canary file is refused', () => `SELECT * FROM read_json(${q(CANARY)})`);
refused('read_parquet of the canary file is refused', () => `SELECT * FROM read_parquet(${q(CANARY)})`);
refused(
  'read_parquet over a glob of other previews in the data dir is refused',
  () => `SELECT * FROM read_parquet(${q(path.join(dataDir, 'query-cache', '*.parquet'))})`,
);
refused('a list of files mixing the canary into read_csv is refused', () => `SELECT * FROM read_csv([${q(CANARY)}, '/etc/passwd'])`);
refused('glob(/*) to list the file system is refused', `SELECT * FROM glob('/*')`);
refused('glob of /tmp to find the canary is refused', `SELECT * FROM glob('/tmp/almanac-canary-*')`);
refused('a replacement scan of /etc/passwd is refused', `SELECT * FROM '/etc/passwd'`);
refused('a replacement scan of the canary by absolute path is refused', () => `SELECT * FROM ${q(CANARY)}`);
refused('a replacement scan of canary.csv by relative name is refused', () => `SELECT * FROM ${q(CANARY_NAME)}`);
refused('parquet_metadata of /etc/passwd is refused', `SELECT * FROM parquet_metadata('/etc/passwd')`);
refused(
  'a file read hidden in a UNION after the real data is refused',
  `SELECT "station name" AS v FROM data UNION ALL SELECT content FROM read_text('/etc/passwd')`,
);
refused('a file read hidden in a scalar subquery is refused', () => `SELECT (SELECT content FROM read_text(${q(CANARY)})) AS secret`);
refused(
  'a file read through the query() table function is refused',
  () => `SELECT * FROM query(${q(`SELECT * FROM read_csv(${q(CANARY)})`)})`,
);

// --- URLs and extensions ---------------------------------------------------------------------------

refused('read_csv of an http URL on the loopback is refused', `SELECT * FROM read_csv('http://127.0.0.1:1/x')`);
refused('read_parquet of an https URL (httpfs) is refused', `SELECT * FROM read_parquet('https://example.com/data.parquet')`);
refused('read_parquet of an s3:// URL is refused', `SELECT * FROM read_parquet('s3://bucket/data.parquet')`);
refused('INSTALL httpfs is refused', 'INSTALL httpfs');
refused('LOAD httpfs is refused', 'LOAD httpfs');
refused('FORCE INSTALL from a custom repository is refused', `FORCE INSTALL httpfs FROM 'http://127.0.0.1:1'`);

// --- Writing files and databases -----------------------------------------------------------------

test.serial('COPY data TO a file is refused and writes nothing', async (t) => {
  t.timeout(60_000);
  assertRefused(t, await query(`COPY data TO ${q(`${WRITE_TARGET}.csv`)}`));
  await t.throwsAsync(fs.access(`${WRITE_TARGET}.csv`), undefined, 'the file exists');
});
test.serial('COPY (SELECT 1) TO a file is refused and writes nothing', async (t) => {
  t.timeout(60_000);
  assertRefused(t, await query(`COPY (SELECT 1 AS x) TO ${q(`${WRITE_TARGET}.parquet`)} (FORMAT parquet)`));
  await t.throwsAsync(fs.access(`${WRITE_TARGET}.parquet`), undefined, 'the file exists');
});
test.serial('EXPORT DATABASE to a directory is refused and writes nothing', async (t) => {
  t.timeout(60_000);
  assertRefused(t, await query(`EXPORT DATABASE ${q(WRITE_TARGET)}`));
  await t.throwsAsync(fs.access(WRITE_TARGET), undefined, 'the directory exists');
});
test.serial('ATTACH of a database file is refused and creates nothing', async (t) => {
  t.timeout(60_000);
  assertRefused(t, await query(`ATTACH ${q(`${WRITE_TARGET}.duckdb`)} AS escape`));
  await t.throwsAsync(fs.access(`${WRITE_TARGET}.duckdb`), undefined, 'the file exists');
});
refused('ATTACH of an in-memory database is refused', `ATTACH ':memory:' AS other`);
refused('DETACH of the main database is refused', 'DETACH memory');
refused('COPY FROM the canary into a table is refused', () => `COPY data FROM ${q(CANARY)}`);

// --- Configuration -------------------------------------------------------------------------------

refused('PRAGMA version is refused', 'PRAGMA version');
refused('PRAGMA database_list is refused', 'PRAGMA database_list');
refused('SET enable_external_access = true is refused', 'SET enable_external_access = true');
refused('SET allowed_paths to the root is refused', `SET allowed_paths = ['/']`);
refused('SET lock_configuration = false is refused', 'SET lock_configuration = false');
refused('RESET enable_external_access is refused', 'RESET enable_external_access');
refused('CALL pragma_version() is refused', 'CALL pragma_version()');
refused('CALL duckdb_settings() is refused', 'CALL duckdb_settings()');
refused('CREATE SECRET is refused', `CREATE SECRET s (TYPE s3, KEY_ID 'k', SECRET 'v')`);

// --- Statements and tricks -----------------------------------------------------------------------

refused('two SELECTs in one request are refused', 'SELECT 1; SELECT 2', ['query_not_select']);
refused('a SELECT followed by DROP VIEW data is refused', 'SELECT 1; DROP VIEW data', ['query_not_select']);
refused('a SELECT followed by a file read is refused', () => `SELECT 1; SELECT * FROM read_csv(${q(CANARY)})`);
refused('a ";" inside a string followed by a real second statement is refused', `SELECT ';' AS s; DROP VIEW data`, ['query_not_select']);
refused('a block comment closed before a second statement is refused', 'SELECT 1 /* a comment */; DROP VIEW data', ['query_not_select']);
refused('a second statement after a line comment on its own line is refused', 'SELECT 1 -- harmless\n; DROP VIEW data', [
  'query_not_select',
]);
refused('a full-width semicolon does not smuggle a second statement', 'SELECT 1；DROP VIEW data');
refused('CREATE TABLE is refused', 'CREATE TABLE t AS SELECT * FROM data');
refused('INSERT INTO is refused', 'INSERT INTO data VALUES (1)');
refused('UPDATE is refused', `UPDATE data SET id = 0`);
refused('DELETE is refused', 'DELETE FROM data');
refused('DROP VIEW data is refused', 'DROP VIEW data');
refused('CREATE OR REPLACE VIEW data over /etc/passwd is refused', `CREATE OR REPLACE VIEW data AS SELECT * FROM read_text('/etc/passwd')`);
refused('CREATE MACRO is refused', 'CREATE MACRO leak() AS 1');
refused('EXPLAIN is refused', 'EXPLAIN SELECT * FROM data');
refused('EXPLAIN ANALYZE is refused', 'EXPLAIN ANALYZE SELECT * FROM data');
refused('PREPARE is refused', 'PREPARE p AS SELECT 1');
refused('BEGIN TRANSACTION is refused', 'BEGIN TRANSACTION');
refused('CHECKPOINT is refused', 'CHECKPOINT');
refused('USE of another catalog is refused', 'USE system');
refused('VACUUM is refused', 'VACUUM');

test.serial('a ";" and DROP VIEW inside a block comment are part of one SELECT, which runs', async (t) => {
  t.timeout(60_000);
  const res = await query('SELECT 1 AS one /* ; DROP VIEW data */');
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body.rows, [{ one: 1 }]);
  assertNothingLeaked(t, res);
});
test.serial('a ";" inside a string literal is one SELECT, which runs', async (t) => {
  t.timeout(60_000);
  const res = await query(`SELECT ';' AS s`);
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body.rows, [{ s: ';' }]);
});
test.serial('a trailing -- line comment hiding "; DROP VIEW data" is one SELECT over the intact view', async (t) => {
  t.timeout(60_000);
  const res = await query('SELECT count(*) AS n FROM data -- ; DROP VIEW data');
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body.rows, [{ n: String(ROWS) }]);
});
test.serial('a NUL byte before a second statement is refused by the request schema (422), before DuckDB sees it', async (t) => {
  t.timeout(60_000);
  const res = await query('SELECT 1 AS one\u0000; DROP VIEW data');
  isProblem(t, res, 422, 'validation_failed');
  t.like(res.body.errors?.[0], { path: 'sql' });
  assertNothingLeaked(t, res);
  const after = await query('SELECT count(*) AS n FROM data');
  t.is(after.status, 200, after.text);
  t.deepEqual(after.body.rows, [{ n: String(ROWS) }]);
});

// --- The environment and the sandbox's own settings ----------------------------------------------

contained("getenv('HOME') gives no environment", `SELECT getenv('HOME') AS home`);
contained("current_setting('temp_directory') shows no absolute path", `SELECT current_setting('temp_directory') AS v`);
contained("current_setting('home_directory') shows no absolute path", `SELECT current_setting('home_directory') AS v`);
contained("current_setting('extension_directory') shows no absolute path", `SELECT current_setting('extension_directory') AS v`);
contained('duckdb_extensions() shows no install path', 'SELECT extension_name, installed, loaded, install_path FROM duckdb_extensions()');
contained('duckdb_databases() shows no database file path', 'SELECT database_name, path FROM duckdb_databases()');
contained('duckdb_temporary_files() shows no spill path', 'SELECT * FROM duckdb_temporary_files()');
contained('DESCRIBE data shows only the columns', 'DESCRIBE data');

// Where the preview lives is the sandbox's business: the settings, catalog views and plans that would
// name its file are refused by name, before DuckDB binds the query, wherever they are hidden.
refused("current_setting('allowed_paths') is refused", `SELECT current_setting('allowed_paths') AS v`);
refused("current_setting('secret_directory') is refused", `SELECT current_setting('secret_directory') AS v`);
refused('system.main.current_setting, fully qualified, is refused', `SELECT system.main.current_setting('allowed_paths') AS v`);
refused('duckdb_settings() is refused', 'SELECT name, value FROM duckdb_settings()');
refused('duckdb_views(), with the definition of data, is refused', 'SELECT view_name, sql FROM duckdb_views()');
refused('information_schema.views is refused', 'SELECT table_name, view_definition FROM information_schema.views');
refused('sqlite_master is refused', 'SELECT name, sql FROM sqlite_master');
refused('pg_views is refused', 'SELECT viewname, definition FROM pg_views');
refused('pg_get_viewdef, a macro over duckdb_views(), is refused', 'SELECT pg_get_viewdef(view_oid) FROM (SELECT 1 AS view_oid)');
refused(
  'a CTE named pg_views that reads itself (so the catalog) is refused',
  'WITH pg_views AS (SELECT * FROM pg_views) SELECT * FROM pg_views',
);
refused('duckdb_external_file_cache() is refused', 'SELECT * FROM duckdb_external_file_cache()');
refused("json_serialize_plan('SELECT * FROM data') is refused", `SELECT json_serialize_plan('SELECT * FROM data') AS plan`);
refused('parquet_file_metadata of the allowed path is refused', `SELECT * FROM parquet_file_metadata(current_setting('allowed_paths')[1])`);
refused(
  'a settings probe inside a scalar subquery is refused',
  `SELECT count(*) AS n, (SELECT value FROM duckdb_settings() WHERE name = 'allowed_paths') AS p FROM data`,
);
refused('a settings probe inside a lambda is refused', `SELECT list_transform([1], v -> current_setting('allowed_paths')) AS p`);

test.serial('a failing cast over the data names no path', async (t) => {
  t.timeout(60_000);
  const res = await query('SELECT CAST("station name" AS INTEGER) AS n FROM data');
  assertRefused(t, res, ['query_invalid']);
});

test.serial('the sandbox settings cannot be read to learn that external access is on', async (t) => {
  t.timeout(60_000);
  const res = await query(`SELECT current_setting('enable_external_access') AS external, current_setting('lock_configuration') AS locked`);
  assertContained(t, res);
  if (res.status === 200) t.deepEqual(res.body.rows, [{ external: false, locked: true }]);
});

// --- Resource bombs ------------------------------------------------------------------------------

contained('count over range(1e12) times out or finishes within 15 s', 'SELECT count(*) FROM range(1000000000000)');
contained(
  'a cross join data × data × data × range(1e6) × range(1e6) is contained',
  'SELECT count(*) FROM data a, data b, data c, range(1000000) r, range(1000000) s',
);
contained(
  'a recursive CTE that never ends is contained',
  'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r',
);
contained(
  'a doubling recursive CTE of strings is contained',
  `WITH RECURSIVE r(s) AS (SELECT 'x' UNION ALL SELECT s || s FROM r) SELECT length(s) FROM r`,
);
contained("repeat('x', 1e9), a 1 GB string, is contained", `SELECT length(repeat('x', 1000000000)) AS n`);
contained('a giant string_agg over a cross join is contained', `SELECT length(string_agg(repeat('y', 1000), '')) FROM range(10000000)`);
contained('a huge list built in memory is contained', 'SELECT len(list(range)) FROM range(2000000000)');
contained('2,000 nested parentheses are contained', () => `SELECT ${'('.repeat(2000)}1${')'.repeat(2000)} AS deep`);
contained('500 nested scalar subqueries are contained', () => `SELECT ${'(SELECT '.repeat(500)}1${')'.repeat(500)} AS deep`);
contained('a 20,000-term expression is contained', () => `SELECT ${Array(20_000).fill('1').join('+')} AS total`);

test.serial('sleep_ms(60000) is stopped at 15 s with 408 query_timeout (or refused)', async (t) => {
  t.timeout(60_000);
  const res = await query('SELECT sleep_ms(60000)');
  assertContained(t, res);
  t.not(res.status, 200, 'a 60 s sleep cannot have finished inside a 15 s limit');
});

test.serial('pg_sleep is no function here (or is stopped at 15 s)', async (t) => {
  t.timeout(60_000);
  const res = await query('SELECT pg_sleep(60)');
  assertContained(t, res);
  t.not(res.status, 200);
});

test.serial('SELECT * FROM range(100000) answers the first 10,000 rows, truncated', async (t) => {
  t.timeout(60_000);
  const res = await query('SELECT * FROM range(100000)');
  t.is(res.status, 200, res.text.slice(0, 500));
  t.is(res.body.truncated, true);
  t.is(res.body.rows.length, MAX_ROWS);
  t.is(res.body.rowCount, MAX_ROWS);
  assertNothingLeaked(t, res);
});

test.serial('a 20 MB result (20,000 rows of 1,000 bytes) is cut near 5 MB and flagged truncated', async (t) => {
  t.timeout(60_000);
  const res = await query(`SELECT repeat('x', 1000) AS s FROM range(20000)`);
  t.is(res.status, 200, res.text.slice(0, 500));
  t.is(res.body.truncated, true);
  t.true(res.body.rows.length < MAX_ROWS, `${res.body.rows.length} rows`);
  t.true(Buffer.byteLength(res.text) < 6 * 1024 * 1024, `${Buffer.byteLength(res.text)} bytes`);
  t.true(Buffer.byteLength(res.text) > 4 * 1024 * 1024, 'the cut is near the limit, not far below it');
});

test.serial('SQL over 100,000 characters is 400 query_too_long', async (t) => {
  t.timeout(60_000);
  const res = await query(`SELECT 1 AS x /* ${'a'.repeat(100_001)} */`);
  isProblem(t, res, 400, 'query_too_long');
  assertNothingLeaked(t, res);
});

// --- Afterwards: the service answers normally ------------------------------------------------------

test.serial('after the corpus, a normal query answers the right count and /api/health is 200', async (t) => {
  t.timeout(60_000);
  const res = await query('SELECT count(*) AS n, sum("année") AS years, min("station name") AS first FROM data');
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body.rows, [{ n: String(ROWS), years: String(2019 + 2020 + 2021 + 2022 + 2023), first: 'Harbour' }]);
  t.is(res.body.truncated, false);
  const health = await app.api.get('/api/health');
  t.is(health.status, 200, health.text);
});
