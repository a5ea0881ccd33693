import test, { type ExecutionContext } from 'ava';
import { queryRunning, startTestApp, until, type TestApp } from '../helpers/app.ts';
import type { Auth } from '../helpers/client.ts';
import { isProblem } from '../helpers/problem.ts';
import { uploadAndProcess } from '../helpers/pipeline.ts';

/** POST /resources/{id}/query over HTTP: the rules and limits of spec §4 and DESIGN §4. */

let app: TestApp;
let admin: Auth;
let publicId: string;
let privateId: string;
let linkId: string;

const CSV =
  [
    'id,"label x",année,score,big,day,flag',
    ...Array.from(
      { length: 12_000 },
      (_, i) =>
        `${i},row ${i},${2000 + (i % 20)},${(i * 0.5).toFixed(1)},${BigInt(i) * 10_000_000_000n},2024-01-${String((i % 28) + 1).padStart(2, '0')},${i % 2 === 0}`,
    ),
  ].join('\n') + '\n';

async function uploadCsv(datasetName: string, isPrivate: boolean) {
  const created = await app.api.post(
    '/api/v1/packages',
    {
      name: datasetName,
      ownerOrg: 'query-org',
      licenseId: 'cc-by-4.0',
      private: isPrivate,
      resources: [
        { urlType: 'upload', name: 'table.csv', format: 'CSV' },
        { urlType: 'link', url: `https://example.org/${datasetName}.csv` },
      ],
    },
    admin,
  );
  if (created.status !== 201) throw new Error(created.text);
  const [upload, link] = created.body.resources;
  await uploadAndProcess(app.api, upload.id, CSV, admin);
  return { uploadId: upload.id as string, linkId: link.id as string };
}

test.before(async () => {
  app = await startTestApp();
  admin = { token: app.adminToken };
  await app.api.post('/api/v1/organizations', { name: 'query-org' }, admin);
  ({ uploadId: publicId, linkId } = await uploadCsv('query-public', false));
  ({ uploadId: privateId } = await uploadCsv('query-private', true));
});
test.after.always(async () => app?.stop());

/** Each test queries as its own user: one query at a time per caller. */
async function asNewUser(name: string): Promise<Auth> {
  return { token: (await app.api.newUser(name)).token };
}
const query = (id: string, sql: string, auth: Auth = {}) => app.api.post(`/api/v1/resources/${id}/query`, { sql }, auth);

/** The public resource's answer to `sql` for a new user named `name`, which must be 200. */
async function answered(t: ExecutionContext, sql: string, name: string) {
  const reply = await query(publicId, sql, await asNewUser(name));
  t.is(reply.status, 200, reply.text);
  return reply;
}

test('a SELECT over `data` returns the result record; quoted names with spaces and accents work', async (t) => {
  const reply = await answered(
    t,
    'SELECT id, "label x", "année", score, big, day, flag FROM data WHERE id IN (1, 2) ORDER BY id',
    'q-basic',
  );
  t.like(reply.body, { id: publicId, columns: ['id', 'label x', 'année', 'score', 'big', 'day', 'flag'], rowCount: 2, truncated: false });
  t.true(Number.isInteger(reply.body.elapsedMs));
  t.deepEqual(reply.body.rows[1], {
    id: '2',
    'label x': 'row 2',
    année: '2002',
    score: 1,
    big: '20000000000',
    day: '2024-01-03',
    flag: true,
  });
});

test('WITH … SELECT and aggregates work; counts come back as strings', async (t) => {
  const reply = await answered(
    t,
    'WITH t AS (SELECT "année" AS y, count(*) AS n FROM data GROUP BY 1) SELECT * FROM t ORDER BY y LIMIT 3',
    'q-with',
  );
  t.deepEqual(reply.body.rows, [
    { y: '2000', n: '600' },
    { y: '2001', n: '600' },
    { y: '2002', n: '600' },
  ]);
});

test('more than 10,000 rows: the first 10,000 and truncated true', async (t) => {
  const reply = await answered(t, 'SELECT * FROM data', 'q-rows');
  t.is(reply.body.rowCount, 10_000);
  t.is(reply.body.rows.length, 10_000);
  t.true(reply.body.truncated);
});

test('a result over 5 MB is cut and flagged', async (t) => {
  const reply = await answered(t, "SELECT repeat('x', 1000) AS s FROM data", 'q-bytes');
  t.true(reply.body.truncated);
  t.true(reply.body.rowCount < 6_000 && reply.body.rowCount > 4_000, String(reply.body.rowCount));
  t.true(reply.text.length < 5.5 * 1024 * 1024);
});

test('NaN and infinities are JSON-safe text; dates ISO 8601', async (t) => {
  const reply = await answered(
    t,
    "SELECT 'nan'::double AS n, 'inf'::double AS i, '-inf'::double AS m, TIMESTAMP '2024-05-01 12:30:00' AS ts LIMIT 1",
    'q-values',
  );
  t.deepEqual(reply.body.rows, [{ n: 'NaN', i: 'Infinity', m: '-Infinity', ts: '2024-05-01T12:30:00' }]);
});

test('wide integers and decimals are strings; dates, times and time zones ISO 8601; blobs, intervals and nested values JSON-safe', async (t) => {
  const sql = `SELECT 170141183460469231731687303715884105727::HUGEINT AS h, 9007199254740993::BIGINT AS b, 12.345::DECIMAL(10,3) AS d,
    DATE '2024-05-01' AS day, TIME '12:30:01' AS t, TIMESTAMPTZ '2024-05-01 12:30:00+02' AS tz, TIMESTAMP_MS '2024-05-01 12:30:00.123' AS ms,
    'infinity'::TIMESTAMP AS forever, INTERVAL 3 DAY AS iv, '\\x00\\xFFab'::BLOB AS bl, [TIMESTAMP '2024-01-02 03:04:05'] AS l,
    {'a': 1, 'n': 'nan'::DOUBLE} AS s, NULL::TIMESTAMP AS none`;
  const reply = await answered(t, sql, 'q-types');
  t.deepEqual(reply.body.rows, [
    {
      h: '170141183460469231731687303715884105727',
      b: '9007199254740993',
      d: '12.345',
      day: '2024-05-01',
      t: '12:30:01',
      tz: '2024-05-01T10:30:00Z',
      ms: '2024-05-01T12:30:00.123',
      forever: 'infinity',
      iv: { months: 0, days: 3, micros: '0' },
      bl: '\\x00\\xFFab',
      l: ['2024-01-02T03:04:05'],
      s: { a: 1, n: 'NaN' },
      none: null,
    },
  ]);
});

test('a self-join keeps both columns of the same name: id and id:1', async (t) => {
  const reply = await answered(t, 'SELECT a.id, b.id FROM data a JOIN data b ON a.id = b.id ORDER BY 1 LIMIT 1', 'q-dupes');
  t.deepEqual(reply.body.columns, ['id', 'id:1']);
  t.deepEqual(Object.keys(reply.body.rows[0]), ['id', 'id:1']);
});

test('a query over anything but data, its CTEs and generators is 400 query_invalid, naming what was refused', async (t) => {
  const user = await asNewUser('q-sources');
  for (const sql of [
    'SELECT * FROM duckdb_settings()',
    "SELECT current_setting('allowed_paths')",
    'SELECT * FROM information_schema.tables',
  ]) {
    const reply = await query(publicId, sql, user);
    isProblem(t, reply, 400, 'query_invalid');
    t.regex(reply.body.detail, /not available here: a query reads the table "data"/);
  }
  const ok = await query(publicId, 'WITH r AS (SELECT * FROM range(3)) SELECT count(*) AS n FROM r, data', user);
  t.is(ok.status, 200, ok.text);
});

test('not a SELECT, or more than one statement: 400 query_not_select', async (t) => {
  const auth = await asNewUser('q-notselect');
  for (const sql of [
    'DROP VIEW data',
    'SELECT 1; SELECT 2',
    "COPY data TO 'out.csv'",
    'PRAGMA version',
    'SET threads = 8',
    'EXPLAIN SELECT 1',
  ]) {
    isProblem(t, await query(publicId, sql, auth), 400, 'query_not_select');
  }
});

test('invalid SQL: 400 query_invalid with DuckDB message and no local path', async (t) => {
  const auth = await asNewUser('q-invalid');
  const reply = await query(publicId, 'SELEC nothing', auth);
  isProblem(t, reply, 400, 'query_invalid');
  t.regex(reply.body.detail, /syntax error/i);
  const file = await query(publicId, "SELECT * FROM read_csv('/etc/passwd')", auth);
  isProblem(t, file, 400, 'query_invalid');
  t.false(file.text.includes('/etc/passwd'), file.text);
  t.false(/\/(tmp|work|root)\//.test(file.text), file.text);
});

test('over-long SQL (over 100,000 characters) is 400 query_too_long', async (t) => {
  const reply = await query(publicId, `SELECT 1 ${' '.repeat(100_001)}`, await asNewUser('q-long'));
  isProblem(t, reply, 400, 'query_too_long');
});

test('a private resource is 404 without access and answers its org members and sysadmins', async (t) => {
  isProblem(t, await query(privateId, 'SELECT 1', {}), 404, 'not_found');
  isProblem(t, await query(privateId, 'SELECT 1', await asNewUser('q-outsider')), 404, 'not_found');
  const reply = await query(privateId, 'SELECT count(*) AS n FROM data', admin);
  t.is(reply.status, 200, reply.text);
  t.deepEqual(reply.body.rows, [{ n: '12000' }]);
});

test('a resource without a preview is 400 not_queryable, as the spec says of a query on a non-queryable resource; an unknown one 404 not_found', async (t) => {
  const auth = await asNewUser('q-noprev');
  isProblem(t, await query(linkId, 'SELECT 1', auth), 400, 'not_queryable');
  isProblem(t, await query('00000000-0000-4000-8000-000000000000', 'SELECT 1', auth), 404, 'not_found');
});

test.serial('a query past 15 s is interrupted with 408, and the service answers normally after', async (t) => {
  t.timeout(90_000);
  const auth = await asNewUser('q-timeout');
  const started = Date.now();
  const reply = await query(publicId, 'SELECT count(*) FROM range(1000000000000) a', auth);
  isProblem(t, reply, 408, 'query_timeout');
  t.true(Date.now() - started < 25_000, `answered after ${Date.now() - started} ms`);
  const after = await query(publicId, 'SELECT count(*) AS n FROM data', auth);
  t.is(after.status, 200, after.text);
});

test.serial('a second concurrent query of the same caller is 429 with Retry-After; another caller is not held up', async (t) => {
  t.timeout(90_000);
  const auth = await asNewUser('q-busy');
  const slow = query(publicId, 'SELECT count(*) FROM range(1000000000000) a', auth);
  await until('the slow query holds its caller lock', () => queryRunning(app));
  const second = await query(publicId, 'SELECT 1 AS x', auth);
  isProblem(t, second, 429, 'query_busy');
  t.is(second.headers.get('retry-after'), '1');
  const other = await query(publicId, 'SELECT 1 AS x', await asNewUser('q-other'));
  t.is(other.status, 200, other.text);
  isProblem(t, await slow, 408, 'query_timeout');
  t.is((await query(publicId, 'SELECT 1 AS x', auth)).status, 200, 'the lock is released with the query');
});
