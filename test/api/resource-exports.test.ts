import test from 'ava';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { queryRunning, startTestApp, until, type TestApp } from '../helpers/app.ts';
import type { Auth } from '../helpers/client.ts';
import { uploadAndProcess } from '../helpers/pipeline.ts';
import { isProblem } from '../helpers/problem.ts';

/**
 * Exports (issue 29 §3) over HTTP: a 20,000-row resource of mixed types goes through the real upload
 * pipeline, and each format comes back through a reader no one here wrote (pyarrow, openpyxl, Python's
 * csv and json), value for value with the rows the CSV was made of.
 */

const ROWS = 20_000;
const FORMATS = ['csv', 'json', 'parquet', 'xlsx'] as const;
const COLUMNS = ['id', 'amount', 'flag', 'label', 'note', 'big'];

type Row = [id: string, amount: number, flag: boolean | null, label: string, note: string | null, big: string];

const LABELS = [
  'plain',
  'with, comma',
  'with "quotes"',
  'two\nlines',
  'tab\there',
  'unicode é 漢字 🎉',
  '=HYPERLINK("http://x")',
  '-12',
  '@home',
  "<xml> & 'apostrophe'",
];

/** The rows the CSV is made of, typed as the preview types them. */
const expected: Row[] = Array.from({ length: ROWS }, (_, i) => [
  String(i),
  Number((Math.sin(i) * 10_000).toPrecision(i % 3 === 0 ? 17 : 6)),
  i % 11 === 0 ? null : i % 2 === 0,
  `${LABELS[i % LABELS.length]} ${i}`,
  i % 5 === 0 ? null : `note ${i}`,
  // Beyond 2^53 from i = 9,008 on: exact in every format (as text in XLSX, whose numbers are doubles).
  String(BigInt(i) * 1_000_000_000_007n),
]);

const csvField = (value: string | number | boolean | null) => {
  if (value === null) return '';
  const text = String(value);
  return /[",\n\t]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};
const CSV = [COLUMNS.join(','), ...expected.map((row) => row.map(csvField).join(','))].join('\n') + '\n';

/** What the CSV export holds for a text cell: a would-be formula gets a leading `'` (csv-export.ts). */
const neutralized = (text: string) =>
  /^[=+\-@\t\r]/.test(text) && !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) ? `'${text}` : text;

/** Reads an export with Python's own readers and prints its rows as JSON (integers as text, so exact). */
const READER = String.raw`
import csv, json, sys
fmt, file = sys.argv[1], sys.argv[2]
kinds = ['int', 'float', 'bool', 'str', 'str', 'int']
def norm(kind, v):
    if v is None or (fmt == 'csv' and v == ''):
        return None
    if kind == 'int':
        return str(int(v))
    if kind == 'float':
        return float(v)
    if kind == 'bool':
        return {'true': True, 'false': False}[v] if isinstance(v, str) else bool(v)
    return v
if fmt == 'csv':
    with open(file, newline='', encoding='utf-8') as f:
        rows = list(csv.reader(f))
    header, rows = rows[0], rows[1:]
elif fmt == 'json':
    with open(file, encoding='utf-8') as f:
        objects = [json.loads(line) for line in f if line.strip()]
    header = list(objects[0].keys()) if objects else []
    rows = [[o[k] for k in header] for o in objects]
elif fmt == 'parquet':
    import pyarrow.parquet as pq
    table = pq.read_table(file)
    header = table.column_names
    types = [str(t) for t in table.schema.types]
    rows = [list(r.values()) for r in table.to_pylist()]
    print(json.dumps({'types': types}))
else:
    import openpyxl
    sheet = openpyxl.load_workbook(file, read_only=True).active
    rows = [list(r) for r in sheet.iter_rows(values_only=True)]
    header, rows = rows[0], rows[1:]
print(json.dumps({'header': header, 'rows': [[norm(k, v) for k, v in zip(kinds, r)] for r in rows]}))
`;

let app: TestApp;
let admin: Auth;
let publicId: string;
let privateId: string;
let dir: string;

test.before(async () => {
  app = await startTestApp();
  admin = { token: app.adminToken };
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'exports-'));
  await app.api.post('/api/v1/organizations', { name: 'export-org' }, admin);
  const upload = async (name: string, isPrivate: boolean) => {
    const created = await app.api.post(
      '/api/v1/packages',
      {
        name,
        ownerOrg: 'export-org',
        licenseId: 'cc-by-4.0',
        private: isPrivate,
        resources: [{ urlType: 'upload', name: 'Mixed table.csv', format: 'CSV' }],
      },
      admin,
    );
    if (created.status !== 201) throw new Error(created.text);
    await uploadAndProcess(app.api, created.body.resources[0].id, CSV, admin);
    return created.body.resources[0].id as string;
  };
  publicId = await upload('exports-public', false);
  privateId = await upload('exports-private', true);
});
test.after.always(async () => {
  await app?.stop();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

async function newUser(name: string): Promise<Auth> {
  return { token: (await app.api.newUser(name)).token };
}

/** A raw request: exports are files, not JSON. */
async function fetchExport(method: 'GET' | 'POST', url: string, auth: Auth, sql?: string) {
  const reply = await fetch(`${app.url}${url}`, {
    method,
    headers: { ...(auth.token ? { Authorization: `Bearer ${auth.token}` } : {}), ...(sql ? { 'Content-Type': 'application/json' } : {}) },
    body: sql ? JSON.stringify({ sql }) : undefined,
    redirect: 'manual',
  });
  return { reply, bytes: Buffer.from(await reply.arrayBuffer()) };
}

function readBack(format: string, bytes: Buffer): Promise<{ header: string[]; rows: unknown[][]; types?: string[] }> {
  const python = process.env.TEST_PYTHON;
  if (!python) throw new Error('TEST_PYTHON is not set: run through test/run.ts, which provisions pyarrow and openpyxl');
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.${format}`);
  return fs.writeFile(file, bytes).then(
    () =>
      new Promise((resolve, reject) =>
        execFile(python, ['-c', READER, format, file], { maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
          if (err) return reject(new Error(`${format}: ${err.message}\n${stderr}`));
          const lines = stdout
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line));
          resolve(Object.assign({}, ...lines));
        }),
      ),
  );
}

/** The expected rows as the format gives them back: CSV neutralizes would-be formulas. */
const asExported = (format: string, rows: Row[]) =>
  format === 'csv'
    ? rows.map((row) => row.map((v, c) => (COLUMNS[c] === 'label' || (COLUMNS[c] === 'note' && v !== null) ? neutralized(v as string) : v)))
    : rows;

for (const format of FORMATS) {
  // One after another: whole exports take one of a few slots each (the server answers 429 past them).
  test.serial(`the whole resource downloads as ${format} and reads back exactly`, async (t) => {
    const { reply, bytes } = await fetchExport(
      'GET',
      `/api/v1/resources/${publicId}/download?format=${format}`,
      await newUser(`dl-${format}`),
    );
    t.is(reply.status, 200, bytes.toString('utf8', 0, 500));
    t.regex(reply.headers.get('content-disposition') ?? '', new RegExp(`^attachment; filename="Mixed_table\\.(csv|jsonl|parquet|xlsx)"`));
    t.is(reply.headers.get('x-almanac-row-count'), String(ROWS));
    t.is(reply.headers.get('x-almanac-truncated'), 'false');
    const back = await readBack(format, bytes);
    t.deepEqual(back.header, COLUMNS);
    t.is(back.rows.length, ROWS);
    t.deepEqual(back.rows, asExported(format, expected));
    if (format === 'parquet') t.deepEqual(back.types, ['int64', 'double', 'bool', 'string', 'string', 'int64']);
  });

  test(`a query result exports as ${format}, the same rows as the JSON answer`, async (t) => {
    const auth = await newUser(`q-${format}`);
    const sql = 'SELECT * FROM data WHERE id % 7 = 0 ORDER BY id DESC';
    const { reply, bytes } = await fetchExport('POST', `/api/v1/resources/${publicId}/query?format=${format}`, auth, sql);
    t.is(reply.status, 200, bytes.toString('utf8', 0, 500));
    const rows = expected.filter((row) => Number(row[0]) % 7 === 0).reverse();
    t.is(reply.headers.get('x-almanac-row-count'), String(rows.length));
    t.is(reply.headers.get('x-almanac-truncated'), 'false');
    t.regex(reply.headers.get('content-disposition') ?? '', /filename="Mixed_table-query\./);
    const back = await readBack(format, bytes);
    t.deepEqual(back.rows, asExported(format, rows));
  });
}

test('a query export obeys the row limit and says so in X-Almanac-Truncated', async (t) => {
  const auth = await newUser('q-limit');
  for (const format of ['csv', 'parquet'] as const) {
    const { reply, bytes } = await fetchExport(
      'POST',
      `/api/v1/resources/${publicId}/query?format=${format}`,
      auth,
      'SELECT * FROM data ORDER BY id',
    );
    t.is(reply.status, 200);
    t.is(reply.headers.get('x-almanac-truncated'), 'true');
    t.is(reply.headers.get('x-almanac-row-count'), '10000');
    const back = await readBack(format, bytes);
    t.deepEqual(back.rows, asExported(format, expected.slice(0, 10_000)));
  }
  // The header is neutralized as well, and lines end in CRLF (RFC 4180).
  const crafted = await fetchExport('POST', `/api/v1/resources/${publicId}/query?format=csv`, auth, `SELECT -5 AS "=cmd", '@x' AS b`);
  t.is(crafted.bytes.toString('utf8'), `'=cmd,b\r\n-5,'@x\r\n`);
  // Without a format the answer is the JSON record, as before.
  const json = await app.api.post(`/api/v1/resources/${publicId}/query`, { sql: 'SELECT count(*) AS n FROM data' }, auth);
  t.is(json.status, 200);
  t.deepEqual(json.body.rows, [{ n: String(ROWS) }]);
});

test.serial('a private resource exports for its editors and is 404 for everyone else, both routes', async (t) => {
  const stranger = await newUser('x-stranger');
  for (const auth of [{}, stranger]) {
    isProblem(t, await app.api.get(`/api/v1/resources/${privateId}/download?format=csv`, auth), 404, 'not_found');
    isProblem(
      t,
      await app.api.post(`/api/v1/resources/${privateId}/query?format=csv`, { sql: 'SELECT * FROM data' }, auth),
      404,
      'not_found',
    );
  }
  const own = await fetchExport('GET', `/api/v1/resources/${privateId}/download?format=json`, admin);
  t.is(own.reply.status, 200);
  t.is(own.bytes.toString('utf8').trim().split('\n').length, ROWS);
});

test.serial('clients that go away from whole exports, mid-file or after the last write, leave no slot or pipe taken', async (t) => {
  const fifos = path.join(app.almanac.services.config.dataDir, 'export-fifos');
  for (const format of ['csv', 'json', 'xlsx']) {
    const controller = new AbortController();
    const reply = await fetch(`${app.url}/api/v1/resources/${publicId}/download?format=${format}`, {
      headers: { Authorization: `Bearer ${admin.token}` },
      signal: controller.signal,
    });
    t.is(reply.status, 200, format);
    // Past the query process's last write for a small file, or mid-file for a large one: either way a cut answer.
    await until('the export’s writer is done or stuck on a full pipe', async () => !(await queryRunning(app)), 2_000).catch(
      () => undefined,
    );
    controller.abort();
  }
  await until('a whole export runs again: the slots of the cut ones were let go', async () => {
    const reply = await fetch(`${app.url}/api/v1/resources/${publicId}/download?format=parquet`, {
      headers: { Authorization: `Bearer ${admin.token}` },
    });
    await reply.arrayBuffer();
    return reply.status === 200;
  });
  await until('no export pipe is left behind', async () => (await fs.readdir(fifos).catch(() => [])).length === 0);
  t.pass();
});

test('a bad format is 400 problem+json; a refused query is a problem too, never a broken file', async (t) => {
  const auth = await newUser('x-bad');
  const bad = await app.api.get(`/api/v1/resources/${publicId}/download?format=xml`, auth);
  isProblem(t, bad, 400, 'invalid_parameters');
  t.true(JSON.stringify(bad.body.errors).includes('format'));
  isProblem(t, await app.api.post(`/api/v1/resources/${publicId}/query?format=pdf`, { sql: 'SELECT 1' }, auth), 400, 'invalid_parameters');
  const invalid = await app.api.post(`/api/v1/resources/${publicId}/query?format=parquet`, { sql: 'SELECT nope FROM data' }, auth);
  isProblem(t, invalid, 400, 'query_invalid');
  const write = await app.api.post(`/api/v1/resources/${publicId}/query?format=csv`, { sql: "COPY data TO '/tmp/x.csv'" }, auth);
  isProblem(t, write, 400, 'query_not_select');
  // Without a format the download is still the original file.
  const original = await fetchExport('GET', `/api/v1/resources/${publicId}/download`, auth);
  t.is(original.reply.status, 200);
  t.is(original.bytes.toString('utf8'), CSV);
});
