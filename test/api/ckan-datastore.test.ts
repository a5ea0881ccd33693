import test from 'ava';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ckanGet, ckanPost, resultOf } from '../helpers/ckan.ts';
import { groupWithMembers, ORGANIZATIONS } from '../helpers/groups.ts';
import { uploadAndProcess } from '../helpers/pipeline.ts';

/**
 * The DataStore (issue 29 §2): datastore_search's q, filters, sort, distinct, fields, include_total,
 * records_format and paging, datastore_search_sql and datastore_info, each checked row for row against
 * the same query run by DuckDB directly over the very CSV file that was uploaded; and the Python
 * ckanapi client calling datastore_search.
 */

const NAMES = ['alpha one', 'beta two', 'gamma alpha', 'alpha alpha beta', 'delta', 'Alphabet soup', 'epsilon, "quoted"', 'zeta-beta'];
const CITIES = ['Oslo', 'Lima', 'Quito', '', 'Lima'];
const ROWS = 120;

function fixture(seed: number) {
  const lines = ['id,name,city,amount,flag,day'];
  for (let i = 1; i <= ROWS; i++) {
    const name = NAMES[(i * seed) % NAMES.length];
    const amount = i % 7 === 0 ? '' : String(((i * 37 + seed) % 13) / 4);
    const day = `2024-01-${String((i % 28) + 1).padStart(2, '0')}`;
    lines.push(
      [
        i * 10 + seed,
        /[",]/.test(name) ? `"${name.replaceAll('"', '""')}"` : name,
        CITIES[i % CITIES.length],
        amount,
        i % 3 === 0,
        day,
      ].join(','),
    );
  }
  return `${lines.join('\n')}\n`;
}

let app: TestApp;
let dir: string;
let resourceId: string;
let otherId: string;
let duck: DuckDBInstance;
let db: DuckDBConnection;

test.before(async (t) => {
  app = await startTestApp();
  await groupWithMembers(t, app, ORGANIZATIONS, { name: 'ds-org' }, {});
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ckan-datastore-'));
  const created = await app.api.post(
    '/api/v1/packages',
    {
      name: 'ds-rows',
      ownerOrg: 'ds-org',
      licenseId: 'cc-by',
      resources: [
        { urlType: 'upload', name: 'rows.csv', format: 'CSV' },
        { urlType: 'upload', name: 'other.csv', format: 'CSV' },
      ],
    },
    app.sysadmin,
  );
  t.is(created.status, 201, created.text);
  [resourceId, otherId] = created.body.resources.map((r: { id: string }) => r.id);
  const csv = path.join(dir, 'rows.csv');
  const other = path.join(dir, 'other.csv');
  await fs.writeFile(csv, fixture(3));
  await fs.writeFile(other, fixture(5));
  await uploadAndProcess(app.api, resourceId, await fs.readFile(csv, 'utf8'), app.sysadmin);
  await uploadAndProcess(app.api, otherId, await fs.readFile(other, 'utf8'), app.sysadmin);
  // DuckDB straight over the same files; `_id` is the row's place in the file, as the DataStore numbers rows.
  duck = await DuckDBInstance.create(':memory:');
  db = await duck.connect();
  await db.run(`CREATE TABLE src AS SELECT * FROM read_csv('${csv}')`);
  await db.run(`CREATE VIEW d AS SELECT rowid + 1 AS _id, * FROM src`);
  await db.run(`CREATE TABLE src2 AS SELECT * FROM read_csv('${other}')`);
  await db.run(`CREATE VIEW d2 AS SELECT rowid + 1 AS _id, * FROM src2`);
});
test.after.always(async () => {
  db?.closeSync();
  duck?.closeSync();
  await app?.stop();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

/** A value as both sides can agree on it: DuckDB's JSON gives 64-bit integers as text, CKAN's as numbers. */
const norm = (v: unknown) => (v === null || v === undefined ? null : typeof v === 'boolean' ? v : String(v));
const duckRows = async (sql: string) => (await db.runAndReadAll(sql)).getRowsJson().map((row) => row.map(norm));
const apiRows = (result: { fields: Array<{ id: string }>; records: Array<Record<string, unknown>> }) =>
  result.records.map((r) => result.fields.map((f) => norm(r[f.id])));
const search = async (params: Record<string, unknown>) =>
  resultOf(await ckanPost(app.api, 'datastore_search', { resource_id: resourceId, ...params }));
const ALL = '_id, id, name, city, amount, flag, day';

test.serial('no parameters: the first 100 rows in file order with _id, fields with CKAN types, the total', async (t) => {
  const result = resultOf(await ckanGet(app.api, 'datastore_search', { resource_id: resourceId }));
  t.deepEqual(result.fields, [
    { id: '_id', type: 'int' },
    { id: 'id', type: 'int8' },
    { id: 'name', type: 'text' },
    { id: 'city', type: 'text' },
    { id: 'amount', type: 'float8' },
    { id: 'flag', type: 'bool' },
    { id: 'day', type: 'date' },
  ]);
  t.deepEqual(apiRows(result), await duckRows(`SELECT ${ALL} FROM d ORDER BY _id LIMIT 100`));
  t.like(result, { total: ROWS, total_was_estimated: false, limit: 100, offset: 0, records_format: 'objects', include_total: true });
  t.is(typeof result.records[0].id, 'number', 'integers are JSON numbers');
  t.is(result.records[0]._id, 1);
});

test.serial('filters: a value, a list of values, a boolean, and a value of another type than the column', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ city: 'Lima' }, "city = 'Lima'"],
    [{ city: ['Oslo', 'Quito'], flag: true }, "city IN ('Oslo', 'Quito') AND flag"],
    [{ id: '43' }, 'id = 43'],
    [{ amount: 0.5, city: 'Oslo' }, "amount = 0.5 AND city = 'Oslo'"],
    [{ city: [] }, 'false'],
  ];
  for (const [filters, where] of cases) {
    const result = await search({ filters, limit: 1000 });
    t.deepEqual(apiRows(result), await duckRows(`SELECT ${ALL} FROM d WHERE ${where} ORDER BY _id`), JSON.stringify(filters));
    t.is(result.total, Number((await duckRows(`SELECT count(*) FROM d WHERE ${where}`))[0][0]));
  }
  // The GET form: the dict as JSON text.
  const got = resultOf(await ckanGet(app.api, 'datastore_search', { resource_id: resourceId, filters: '{"city":"Quito"}', limit: 1000 }));
  t.deepEqual(apiRows(got), await duckRows(`SELECT ${ALL} FROM d WHERE city = 'Quito' ORDER BY _id`));
});

test.serial('sort: several clauses, desc, nulls as PostgreSQL puts them unless told, quoted names', async (t) => {
  const cases: Array<[unknown, string]> = [
    ['amount desc, name', 'amount DESC NULLS FIRST, name ASC NULLS LAST'],
    ['"city" asc nulls first, id desc', 'city ASC NULLS FIRST, id DESC NULLS FIRST'],
    [['day', 'amount asc'], 'day ASC NULLS LAST, amount ASC NULLS LAST'],
    ['_id desc', '_id DESC'],
  ];
  for (const [sort, order] of cases) {
    const result = await search({ sort, limit: 1000 });
    t.deepEqual(apiRows(result), await duckRows(`SELECT ${ALL} FROM d ORDER BY ${order}, _id`), JSON.stringify(sort));
  }
  const page = await search({ sort: 'amount desc', filters: { city: 'Lima' }, limit: 5, offset: 5 });
  t.deepEqual(
    apiRows(page),
    await duckRows(`SELECT ${ALL} FROM d WHERE city = 'Lima' ORDER BY amount DESC NULLS FIRST, _id LIMIT 5 OFFSET 5`),
  );
});

test.serial('fields: only those, in the order asked, _id only when asked', async (t) => {
  const result = await search({ fields: ['name', '_id', 'amount'], limit: 7, offset: 3 });
  t.deepEqual(
    result.fields.map((f: { id: string }) => f.id),
    ['name', '_id', 'amount'],
  );
  t.deepEqual(apiRows(result), await duckRows('SELECT name, _id, amount FROM d ORDER BY _id LIMIT 7 OFFSET 3'));
  const text = resultOf(await ckanGet(app.api, 'datastore_search', { resource_id: resourceId, fields: 'city, id', limit: 3 }));
  t.deepEqual(apiRows(text), await duckRows('SELECT city, id FROM d ORDER BY _id LIMIT 3'));
});

test.serial('distinct: the distinct values of the fields, counted in the total', async (t) => {
  const result = await search({ fields: 'city', distinct: true, sort: 'city desc' });
  t.deepEqual(apiRows(result), await duckRows('SELECT DISTINCT city FROM d ORDER BY city DESC NULLS FIRST'));
  t.is(result.total, Number((await duckRows('SELECT count(*) FROM (SELECT DISTINCT city FROM d)'))[0][0]));
  const pairs = await search({ fields: ['city', 'flag'], distinct: true, filters: { flag: false }, limit: 1000 });
  t.deepEqual(apiRows(pairs), await duckRows('SELECT DISTINCT city, flag FROM d WHERE NOT flag ORDER BY city NULLS LAST, flag'));
});

test.serial('q: every word starting a word somewhere in the row, ranked by matches; per field as a dict', async (t) => {
  // Occurrences of a word that starts a word (ASCII fixture: \b is the word boundary), per column.
  const hits = (word: string, columns: string[]) =>
    columns.map((c) => `coalesce(len(regexp_extract_all(lower(CAST(${c} AS VARCHAR)), '\\b${word}')), 0)`).join(' + ');
  const every = ['id', 'name', 'city', 'amount', 'flag', 'day'];
  const result = await search({ q: 'Alpha', limit: 1000 });
  t.is(result.fields.at(-1).id, 'rank');
  t.deepEqual(
    apiRows(result),
    await duckRows(
      `SELECT ${ALL}, (${hits('alpha', every)}) / ((${hits('alpha', every)}) + 1.0) AS rank FROM d WHERE (${hits('alpha', every)}) > 0 ORDER BY rank DESC, _id`,
    ),
  );
  t.true(result.records.length > 0 && result.records.length < ROWS);
  const two = await search({ q: 'beta lima', fields: ['_id'], limit: 1000 });
  t.deepEqual(
    apiRows(two),
    await duckRows(
      `SELECT _id FROM d WHERE (${hits('beta', every)}) > 0 AND (${hits('lima', every)}) > 0 ORDER BY (${hits('beta', every)}) + (${hits('lima', every)}) DESC, _id`,
    ),
  );
  const byField = await search({ q: { name: 'beta' }, fields: ['_id', 'name'], sort: '_id', limit: 1000 });
  t.deepEqual(apiRows(byField), await duckRows(`SELECT _id, name FROM d WHERE (${hits('beta', ['name'])}) > 0 ORDER BY _id`));
  const asText = resultOf(
    await ckanGet(app.api, 'datastore_search', { resource_id: resourceId, q: '{"city":"quito"}', fields: '_id', limit: 1000 }),
  );
  t.deepEqual(apiRows(asText), await duckRows(`SELECT _id FROM d WHERE city = 'Quito' ORDER BY _id`));
});

test.serial('q that is no JSON dict is text to search, as CKAN reads it: "{alpha" finds what "alpha" finds', async (t) => {
  const plain = await search({ q: 'alpha', limit: 1000 });
  t.true(plain.records.length > 0);
  for (const q of ['{alpha', '{alpha} ']) t.deepEqual(apiRows(await search({ q, limit: 1000 })), apiRows(plain), q);
  const byField = await search({ q: '{"name": "alpha"}', limit: 1000 });
  t.true(
    byField.fields.some((f: { id: string }) => f.id === 'rank name'),
    'JSON text of a dict is still a dict',
  );
});

test.serial('include_total: false leaves the total out; a filtered total counts every matching row, not the page', async (t) => {
  const without = await search({ include_total: false, limit: 2 });
  t.false('total' in without);
  t.false('total_was_estimated' in without);
  const filtered = await search({ filters: { flag: true }, limit: 2 });
  t.is(filtered.records.length, 2);
  t.is(filtered.total, Number((await duckRows('SELECT count(*) FROM d WHERE flag'))[0][0]));
  const past = await search({ filters: { flag: true }, offset: 1000 });
  t.deepEqual(past.records, []);
  t.is(past.total, filtered.total, 'an empty page still has its total');
});

/** RFC 4180 fields of CSV text (quotes doubled), as PostgreSQL's COPY writes them. */
function parseCsv(text: string, delimiter: string): Array<Array<string | null>> {
  const rows: Array<Array<string | null>> = [];
  let row: Array<string | null> = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        if (text[i] === '"' && text[i + 1] === '"') {
          value += '"';
          i += 2;
        } else if (text[i] === '"') break;
        else value += text[i++];
      }
      i++;
      row.push(value);
    } else {
      let end = i;
      while (end < text.length && text[end] !== delimiter && text[end] !== '\n') end++;
      row.push(text.slice(i, end) === '' ? null : text.slice(i, end));
      i = end;
    }
    if (text[i] === delimiter) i++;
    else if (text[i] === '\n') {
      rows.push(row);
      row = [];
      i++;
    }
  }
  return rows;
}

test.serial('records_format: lists, csv and tsv hold the same rows as objects', async (t) => {
  const sql = `SELECT ${ALL} FROM d WHERE city <> 'Oslo' ORDER BY amount DESC NULLS FIRST, _id LIMIT 40`;
  const params = { filters: { city: ['Lima', 'Quito'] }, sort: 'amount desc', limit: 40 };
  const expected = await duckRows(sql);
  const lists = await search({ ...params, records_format: 'lists' });
  t.deepEqual(
    lists.records.map((r: unknown[]) => r.map(norm)),
    expected,
  );
  const pgText = (v: unknown) => (v === true ? 't' : v === false ? 'f' : norm(v));
  for (const [format, delimiter] of [
    ['csv', ','],
    ['tsv', '\t'],
  ]) {
    const result = await search({ ...params, records_format: format });
    t.is(typeof result.records, 'string');
    t.deepEqual(
      parseCsv(result.records, delimiter),
      expected.map((row) => row.map(pgText)),
      format,
    );
    t.is(result.records_format, format);
  }
  const quoted = await search({ filters: { name: 'epsilon, "quoted"' }, fields: 'name', limit: 1, records_format: 'csv' });
  t.is(quoted.records, '"epsilon, ""quoted"""\n');
});

test.serial('paging: _links.next walks every row once, deep pages by cursor or offset alike', async (t) => {
  const expected = await duckRows(`SELECT ${ALL} FROM d WHERE flag = false ORDER BY _id`);
  const seen: unknown[][] = [];
  let url = `/api/3/action/datastore_search?resource_id=${resourceId}&filters=${encodeURIComponent('{"flag":false}')}&limit=7`;
  for (let pages = 0; pages < 50; pages++) {
    const result = resultOf(await app.api.get(url));
    if (!result.records.length) break;
    seen.push(...apiRows(result));
    t.true(result._links.next.includes('cursor='), 'the next link carries the cursor');
    url = result._links.next;
  }
  t.deepEqual(seen, expected);
  const byOffset = await search({ filters: { flag: false }, limit: 7, offset: 21 });
  t.deepEqual(apiRows(byOffset), expected.slice(21, 28));
  const start = resultOf(await ckanGet(app.api, 'datastore_search', { resource_id: resourceId, limit: 2, offset: 4 }));
  t.is(start._links.start, `/api/3/action/datastore_search?resource_id=${resourceId}&limit=2`);
  t.is(start._links.next, `/api/3/action/datastore_search?resource_id=${resourceId}&limit=2&offset=6&cursor=6%3A6`);
  t.deepEqual(apiRows(start), await duckRows(`SELECT ${ALL} FROM d ORDER BY _id LIMIT 2 OFFSET 4`));
  // A client that changes the next link's offset (a jump, as CKAN's offset-only link allows) gets that offset.
  const filtered = resultOf(
    await app.api.get(`/api/3/action/datastore_search?resource_id=${resourceId}&filters=${encodeURIComponent('{"flag":false}')}&limit=7`),
  );
  const jumped = resultOf(await app.api.get(filtered._links.next.replace('offset=7', 'offset=21')));
  t.deepEqual(apiRows(jumped), expected.slice(21, 28));
  t.is(jumped.offset, 21);
  const refused = await ckanGet(app.api, 'datastore_search', { resource_id: resourceId, cursor: 'x' });
  t.is(refused.status, 409);
});

test.serial('a name the table does not have is CKAN’s Validation Error naming it, for filters, sort, fields and q', async (t) => {
  const cases: Array<[Record<string, unknown>, string, string]> = [
    [{ filters: { nope: 1 } }, 'filters', 'invalid value "nope"'],
    [{ sort: 'nope desc' }, 'sort', 'invalid value "nope desc"'],
    [{ fields: ['name', 'nope'] }, 'fields', 'invalid value "nope"'],
    [{ q: { nope: 'x' } }, 'q', 'invalid value "nope"'],
    [{ records_format: 'xml' }, 'records_format', 'Value must be one of: objects, lists, csv, tsv'],
  ];
  for (const [params, field, message] of cases) {
    const reply = await ckanPost(app.api, 'datastore_search', { resource_id: resourceId, ...params });
    t.is(reply.status, 409, reply.text);
    t.is(reply.body.error.__type, 'Validation Error');
    t.deepEqual(reply.body.error[field], [message], JSON.stringify(params));
  }
});

test.serial(
  'datastore_search_sql: CKAN’s form, rows as DuckDB gives them; a join of two resources; records_truncated past the cap',
  async (t) => {
    const sql = `SELECT city, count(*) AS n, sum(amount) AS total FROM "${resourceId}" GROUP BY city ORDER BY city NULLS FIRST`;
    const result = resultOf(await ckanPost(app.api, 'datastore_search_sql', { sql }));
    t.is(result.sql, sql);
    t.deepEqual(result.fields, [
      { id: 'city', type: 'text' },
      { id: 'n', type: 'int8' },
      { id: 'total', type: 'float8' },
    ]);
    t.deepEqual(
      apiRows(result),
      await duckRows('SELECT city, count(*) AS n, sum(amount) AS total FROM d GROUP BY city ORDER BY city NULLS FIRST'),
    );
    t.false('records_truncated' in result);
    const join = `SELECT a._id, a.name, b.name AS other FROM "${resourceId}" a JOIN "${otherId}" b ON a._id = b._id WHERE a.flag ORDER BY a._id`;
    const joined = resultOf(await ckanGet(app.api, 'datastore_search_sql', { sql: join }));
    t.deepEqual(
      apiRows(joined),
      await duckRows('SELECT a._id, a.name, b.name AS other FROM d a JOIN d2 b ON a._id = b._id WHERE a.flag ORDER BY a._id'),
    );
    const many = resultOf(await ckanPost(app.api, 'datastore_search_sql', { sql: `SELECT * FROM "${resourceId}", range(100)` }));
    t.is(many.records_truncated, true);
    t.is(many.records.length, 10_000);
    const bad = await ckanPost(app.api, 'datastore_search_sql', { sql: `SELECT * FROM "${resourceId}"; SELECT 1` });
    t.is(bad.status, 409);
    const file = await ckanPost(app.api, 'datastore_search_sql', { sql: `SELECT * FROM "${resourceId}", read_csv('/etc/passwd')` });
    t.is(file.status, 409, 'only the named resources are tables');
    const data = await ckanPost(app.api, 'datastore_search_sql', { sql: `SELECT * FROM "${resourceId}", data` });
    t.is(data.status, 409, 'the single-resource query’s `data` is no table here');
  },
);

test.serial('datastore_info: the fields with CKAN and native types, the row count', async (t) => {
  const info = resultOf(await ckanGet(app.api, 'datastore_info', { id: resourceId }));
  t.like(info.meta, { id: resourceId, count: ROWS, table_type: 'BASE TABLE', aliases: [] });
  t.true(info.meta.size > 0);
  const described = (await db.runAndReadAll('DESCRIBE src')).getRowObjectsJson();
  t.deepEqual(
    info.fields.map((f: { id: string }) => f.id),
    described.map((r) => r.column_name),
  );
  t.deepEqual(info.fields[1], {
    id: 'name',
    type: 'text',
    schema: { native_type: 'text', notnull: false, index_name: null, is_index: false, uniquekey: false },
  });
  t.is(info.fields[0].type, 'int8');
  t.is(info.fields[0].schema.native_type, 'bigint');
});

function python(): string {
  const found = process.env.TEST_PYTHON;
  if (!found) throw new Error('TEST_PYTHON is not set: run the suite with test/run.ts, which provisions ckanapi');
  return found;
}

const CKANAPI_SCRIPT = `
import json, sys
from ckanapi import RemoteCKAN
site = RemoteCKAN(sys.argv[1])
result = site.action.datastore_search(resource_id=sys.argv[2], filters={"city": "Lima"}, sort="amount desc", limit=10)
print(json.dumps(result))
`;

test.serial('a file whose first column is _id (a CKAN DataStore dump) has one _id: the row number, in every action', async (t) => {
  const created = await app.api.post(
    '/api/v1/packages',
    { name: 'ds-dump', ownerOrg: 'ds-org', licenseId: 'cc-by', resources: [{ urlType: 'upload', name: 'dump.csv', format: 'CSV' }] },
    app.sysadmin,
  );
  t.is(created.status, 201, created.text);
  const id = created.body.resources[0].id;
  await uploadAndProcess(app.api, id, '_id,city,n\n101,Oslo,1\n102,Lima,2\n103,Quito,3\n', app.sysadmin);
  const all = resultOf(await ckanPost(app.api, 'datastore_search', { resource_id: id }));
  t.deepEqual(
    all.fields.map((f: { id: string }) => f.id),
    ['_id', 'city', 'n'],
  );
  t.deepEqual(
    all.records.map((r: { _id: number; city: string }) => [r._id, r.city]),
    [
      [1, 'Oslo'],
      [2, 'Lima'],
      [3, 'Quito'],
    ],
  );
  t.deepEqual(resultOf(await ckanPost(app.api, 'datastore_search', { resource_id: id, filters: { _id: 2 } })).records[0].city, 'Lima');
  const info = resultOf(await ckanPost(app.api, 'datastore_info', { id }));
  t.deepEqual(
    info.fields.map((f: { id: string }) => f.id),
    ['city', 'n'],
  );
  const sql = resultOf(await ckanPost(app.api, 'datastore_search_sql', { sql: `SELECT _id, city FROM "${id}" ORDER BY _id DESC LIMIT 1` }));
  t.deepEqual(sql.records, [{ _id: 3, city: 'Quito' }]);
});

test.serial('the Python ckanapi client calls datastore_search with filters and sort', async (t) => {
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(python(), ['-c', CKANAPI_SCRIPT, app.url, resourceId], { timeout: 60_000 }, (err, out, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(out),
    ),
  );
  const result = JSON.parse(stdout);
  t.deepEqual(apiRows(result), await duckRows(`SELECT ${ALL} FROM d WHERE city = 'Lima' ORDER BY amount DESC NULLS FIRST, _id LIMIT 10`));
  t.is(result.total, Number((await duckRows("SELECT count(*) FROM d WHERE city = 'Lima'"))[0][0]));
});
