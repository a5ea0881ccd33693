import { createHash } from 'node:crypto';
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import type { Auth } from '../helpers/client.ts';
import { settledPipeline, uploadAndProcess } from '../helpers/pipeline.ts';
import { isProblem } from '../helpers/problem.ts';
import { startFileServer } from '../helpers/file-server.ts';

/** Data versions of a resource over HTTP (issue 30 §2): each upload a version, each version served, retention and the sweep. */

const V1 = '/api/v1';
let app: TestApp;
let retaining: TestApp;
let admin: Auth;
let linkServer: Awaited<ReturnType<typeof startFileServer>>;
/** What the link server's /towns.csv answers now. */
let linked = '';

/** Three files of one table: v2 changes a value, v3 adds a row. */
const FILES = [
  'id,city,people\n1,Brest,139000\n2,Quimper,63000\n',
  'id,city,people\n1,Brest,140000\n2,Quimper,63000\n',
  'id,city,people\n1,Brest,141000\n2,Quimper,64000\n3,Vannes,54000\n',
];
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function newUploadResource(site: TestApp, name: string, isPrivate = false) {
  const auth = { token: site.adminToken };
  const created = await site.api.post(
    `${V1}/packages`,
    {
      name,
      ownerOrg: 'versions-org',
      licenseId: 'cc-by-4.0',
      private: isPrivate,
      resources: [{ urlType: 'upload', name: 'towns.csv', format: 'CSV' }],
    },
    auth,
  );
  if (created.status !== 201) throw new Error(created.text);
  return created.body.resources[0].id as string;
}

async function threeVersions(site: TestApp, name: string, isPrivate = false) {
  const id = await newUploadResource(site, name, isPrivate);
  for (const file of FILES) await uploadAndProcess(site.api, id, file, { token: site.adminToken });
  return id;
}

async function objectKeys(site: TestApp, id: string) {
  const keys: string[] = [];
  for await (const object of site.almanac.services.storage.list(`resources/${id}/`)) keys.push(object.key.slice(`resources/${id}/`.length));
  return keys.sort();
}

const bytesOf = async (site: TestApp, path: string, auth: Auth = {}) => {
  const reply = await fetch(`${site.url}${path}`, { headers: auth.token ? { Authorization: `Bearer ${auth.token}` } : {} });
  return { status: reply.status, text: await reply.text() };
};

/** Each test queries as its own user: one query at a time per caller. */
const asNewUser = async (name: string): Promise<Auth> => ({ token: (await app.api.newUser(name)).token });

test.before(async () => {
  linkServer = await startFileServer({
    '/towns.csv': (_req, res) => void res.writeHead(200, { 'Content-Type': 'text/csv' }).end(linked),
    '/other.csv': (_req, res) => void res.writeHead(200, { 'Content-Type': 'text/csv' }).end(FILES[2]),
  });
  [app, retaining] = await Promise.all([
    startTestApp({ FETCH_ALLOW_PRIVATE_NETWORKS: 'true' }),
    startTestApp({ VERSION_RETENTION: 'last:2' }),
  ]);
  admin = { token: app.adminToken };
  for (const site of [app, retaining]) await site.api.post(`${V1}/organizations`, { name: 'versions-org' }, { token: site.adminToken });
});
test.after.always(async () => {
  await Promise.all([app?.stop(), retaining?.stop(), linkServer?.close()]);
});

test('three uploads make three versions, newest first, each downloadable, previewable, with its schema and queryable', async (t) => {
  const id = await threeVersions(app, 'three-uploads');
  const caller = await asNewUser('three-uploads-reader');
  const list = await app.api.get(`${V1}/resources/${id}/versions`);
  t.is(list.status, 200, list.text);
  t.like(list.body, { count: 3, offset: 0, limit: 20 });
  t.deepEqual(
    list.body.results.map((v: { version: number; current: boolean; sha256: string; rowCount: number; size: number }) => [
      v.version,
      v.current,
      v.sha256,
      v.rowCount,
      v.size,
    ]),
    [
      [3, true, sha256(FILES[2]!), 3, FILES[2]!.length],
      [2, false, sha256(FILES[1]!), 2, FILES[1]!.length],
      [1, false, sha256(FILES[0]!), 2, FILES[0]!.length],
    ],
  );
  // Each version names the change that brought its file: the activity where the resource first had its hash.
  for (const version of list.body.results) {
    const activity = await app.api.get(`${V1}/activity/${version.activityId}`);
    t.is(activity.status, 200, `version ${version.version}: ${activity.text}`);
    const [{ after }] = activity.body.changes.filter(
      (c: { path: string }) => c.path === `resources.${id}.hash` || c.path === `resources.${id}`,
    );
    t.is(typeof after === 'string' ? after : after.hash, version.sha256);
  }
  const paged = await app.api.get(`${V1}/resources/${id}/versions?offset=1&limit=1`);
  t.like(paged.body, { count: 3, offset: 1, limit: 1 });
  t.deepEqual(
    paged.body.results.map((v: { version: number }) => v.version),
    [2],
  );

  for (const [index, file] of FILES.entries()) {
    const n = index + 1;
    t.deepEqual(
      await bytesOf(app, `${V1}/resources/${id}/versions/${n}/download`),
      { status: 200, text: file },
      `download of version ${n}`,
    );
    t.deepEqual(await bytesOf(app, `${V1}/resources/${id}/versions/${n}/preview`), { status: 200, text: file }, `preview of version ${n}`);
    const schema = await app.api.get(`${V1}/resources/${id}/versions/${n}/schema`);
    t.is(schema.status, 200, schema.text);
    t.like(schema.body, { id, version: n, queryable: true, schema: { rowCount: n === 3 ? 3 : 2 } });
    t.deepEqual(
      schema.body.schema.columns.map((c: { name: string }) => c.name),
      ['id', 'city', 'people'],
    );
    const query = await app.api.post(
      `${V1}/resources/${id}/versions/${n}/query`,
      { sql: "SELECT people FROM data WHERE city = 'Brest'" },
      caller,
    );
    t.is(query.status, 200, query.text);
    t.deepEqual(query.body.rows, [{ people: String(139000 + index * 1000) }]);
  }
  // `data` of the resource's own query is the current version; the current routes serve it.
  const current = await app.api.post(`${V1}/resources/${id}/query`, { sql: 'SELECT count(*)::INTEGER AS n FROM data' }, caller);
  t.deepEqual(current.body.rows, [{ n: 3 }]);
  t.deepEqual(await bytesOf(app, `${V1}/resources/${id}/download`), { status: 200, text: FILES[2] });

  isProblem(t, await app.api.get(`${V1}/resources/${id}/versions/4/schema`), 404, 'not_found');
  isProblem(t, await app.api.get(`${V1}/resources/${id}/versions/0/schema`), 404, 'not_found');
});

test('one SELECT joins version_1 and version_3; a version that does not exist, or any other table, is refused', async (t) => {
  const id = await threeVersions(app, 'joined-versions');
  const caller = await asNewUser('joined-reader');
  const joined = await app.api.post(
    `${V1}/resources/${id}/query`,
    {
      sql: 'SELECT v3.city, v1.people AS before, v3.people AS after FROM version_3 v3 LEFT JOIN version_1 v1 USING (id) ORDER BY id',
    },
    caller,
  );
  t.is(joined.status, 200, joined.text);
  t.deepEqual(joined.body.rows, [
    { city: 'Brest', before: '139000', after: '141000' },
    { city: 'Quimper', before: '63000', after: '64000' },
    { city: 'Vannes', before: null, after: '54000' },
  ]);
  const withData = await app.api.post(
    `${V1}/resources/${id}/versions/1/query`,
    { sql: 'SELECT (SELECT count(*) FROM data)::INTEGER AS old, (SELECT count(*) FROM version_3)::INTEGER AS new' },
    caller,
  );
  t.deepEqual(withData.body.rows, [{ old: 2, new: 3 }]);
  const many = await app.api.post(
    `${V1}/resources/${id}/query`,
    { sql: 'SELECT 1 FROM version_1, version_2, version_3, version_4, version_5' },
    caller,
  );
  isProblem(t, many, 400, 'query_invalid');
  t.regex(many.body.detail, /at most 4 versions/);
  const missing = await app.api.post(`${V1}/resources/${id}/query`, { sql: 'SELECT * FROM version_7' }, caller);
  isProblem(t, missing, 400, 'query_invalid');
  t.regex(missing.body.detail, /version_7 is not available/);
  for (const sql of [
    'SELECT * FROM version_1 JOIN versions USING (id)',
    "SELECT * FROM read_parquet('version_1')",
    'SELECT * FROM main.version_10',
  ]) {
    isProblem(t, await app.api.post(`${V1}/resources/${id}/query`, { sql }, caller), 400, 'query_invalid');
  }
});

test("a private resource's versions are 404 to anyone who may not see the dataset, and served to its editors", async (t) => {
  const id = await threeVersions(app, 'private-versions', true);
  const stranger = { token: (await app.api.newUser('versions-stranger')).token };
  for (const auth of [{}, stranger]) {
    isProblem(t, await app.api.get(`${V1}/resources/${id}/versions`, auth), 404, 'not_found');
    isProblem(t, await app.api.get(`${V1}/resources/${id}/versions/1/schema`, auth), 404, 'not_found');
    isProblem(t, await app.api.post(`${V1}/resources/${id}/versions/1/query`, { sql: 'SELECT 1 FROM data' }, auth), 404, 'not_found');
    isProblem(t, await app.api.post(`${V1}/resources/${id}/query`, { sql: 'SELECT 1 FROM version_1' }, auth), 404, 'not_found');
    for (const what of ['download', 'preview']) t.is((await bytesOf(app, `${V1}/resources/${id}/versions/1/${what}`, auth)).status, 404);
  }
  t.is((await app.api.get(`${V1}/resources/${id}/versions`, admin)).body.count, 3);
  t.deepEqual(await bytesOf(app, `${V1}/resources/${id}/versions/1/download`, admin), { status: 200, text: FILES[0] });
});

test('a re-run over the same file keeps one version per file, and the sweep finds nothing of a resource whose versions are all kept', async (t) => {
  const id = await threeVersions(app, 'rerun-versions');
  t.is((await app.api.post(`${V1}/resources/${id}/run-pipeline`, undefined, admin)).status, 202);
  await settledPipeline(app.api, id, admin, { succeeded: true });
  const list = await app.api.get(`${V1}/resources/${id}/versions`);
  t.deepEqual(
    list.body.results.map((v: { version: number }) => v.version),
    [3, 2, 1],
  );
  const current = await app.api.post(
    `${V1}/resources/${id}/versions/3/query`,
    { sql: 'SELECT count(*)::INTEGER AS n FROM data' },
    await asNewUser('rerun-reader'),
  );
  t.deepEqual(current.body.rows, [{ n: 3 }]);
  const keys = await objectKeys(app, id);
  t.is(keys.filter((k) => k.startsWith('files/')).length, 3);
  t.is(keys.filter((k) => k.startsWith('previews/')).length, 3, 'the replaced preview of version 3 is gone');
  const report = await app.api.get(`${V1}/admin/storage/orphans`, admin);
  t.false(
    (report.body.orphans as Array<{ key: string }>).some((o) => o.key.startsWith(`resources/${id}/`)),
    JSON.stringify(report.body.orphans),
  );
});

test('retention keeping the last 2: version 1 leaves the list, and the sweep removes its file and preview and nothing else', async (t) => {
  const auth = { token: retaining.adminToken };
  const id = await threeVersions(retaining, 'retained-versions');
  const before = await objectKeys(retaining, id);
  t.is(before.filter((k) => k.startsWith('files/')).length, 3, 'retention is applied by the sweep; until then the objects stay');
  const list = await retaining.api.get(`${V1}/resources/${id}/versions`);
  t.deepEqual(
    list.body.results.map((v: { version: number }) => v.version),
    [3, 2],
  );
  isProblem(t, await retaining.api.get(`${V1}/resources/${id}/versions/1/schema`), 404, 'not_found');
  isProblem(t, await retaining.api.post(`${V1}/resources/${id}/query`, { sql: 'SELECT * FROM version_1' }, auth), 400, 'query_invalid');

  const report = await retaining.api.get(`${V1}/admin/storage/orphans`, auth);
  const ours = (report.body.orphans as Array<{ key: string; reason: string }>).filter((o) => o.key.startsWith(`resources/${id}/`));
  t.is(ours.length, 2, JSON.stringify(ours));
  const swept = await retaining.api.delete(`${V1}/admin/storage/orphans?olderThanSeconds=0`, auth);
  t.is(swept.status, 200, swept.text);
  const after = await objectKeys(retaining, id);
  t.deepEqual(
    before.filter((k) => !after.includes(k)).sort(),
    ours.map((o) => o.key.slice(`resources/${id}/`.length)).sort(),
    'exactly what the report named went',
  );
  t.is(after.filter((k) => k.startsWith('files/')).length, 2);
  t.is(after.filter((k) => k.startsWith('previews/')).length, 2);
  for (const n of [2, 3])
    t.deepEqual(await bytesOf(retaining, `${V1}/resources/${id}/versions/${n}/download`), { status: 200, text: FILES[n - 1] });
  const joined = await retaining.api.post(`${V1}/resources/${id}/query`, { sql: 'SELECT count(*)::INTEGER AS n FROM version_2' }, auth);
  t.deepEqual(joined.body.rows, [{ n: 2 }]);
  t.is(
    (await retaining.api.get(`${V1}/admin/storage/orphans`, auth)).body.orphans.filter((o: { key: string }) =>
      o.key.startsWith(`resources/${id}/`),
    ).length,
    0,
  );
});

test('a link makes a version when what it answers changes or it points elsewhere; each version serves the copy fetched then', async (t) => {
  linked = FILES[0]!;
  const created = await app.api.post(
    `${V1}/packages`,
    {
      name: 'linked-versions',
      ownerOrg: 'versions-org',
      licenseId: 'cc-by-4.0',
      resources: [{ urlType: 'link', url: `${linkServer.url}/towns.csv`, name: 'Towns', format: 'CSV' }],
    },
    admin,
  );
  t.is(created.status, 201, created.text);
  const id = created.body.resources[0].id as string;
  const rerun = async () => {
    t.is((await app.api.post(`${V1}/resources/${id}/run-pipeline`, undefined, admin)).status, 202);
    await settledPipeline(app.api, id, admin, { succeeded: true });
  };
  await rerun(); // a link is fetched when the pipeline is asked to run
  linked = FILES[1]!;
  await rerun();
  await rerun(); // the same answer again: no new version
  const put = await app.api.put(
    `${V1}/resources/${id}`,
    { urlType: 'link', url: `${linkServer.url}/other.csv`, name: 'Towns', format: 'CSV' },
    admin,
  );
  t.is(put.status, 200, put.text);
  await settledPipeline(app.api, id, admin, { succeeded: true });

  const list = await app.api.get(`${V1}/resources/${id}/versions`);
  t.deepEqual(
    list.body.results.map((v: { version: number; sourceUrl: string; sha256: string }) => [v.version, v.sourceUrl, v.sha256]),
    [
      [3, `${linkServer.url}/other.csv`, sha256(FILES[2]!)],
      [2, `${linkServer.url}/towns.csv`, sha256(FILES[1]!)],
      [1, `${linkServer.url}/towns.csv`, sha256(FILES[0]!)],
    ],
  );
  for (const n of [1, 2, 3]) {
    t.deepEqual(await bytesOf(app, `${V1}/resources/${id}/versions/${n}/download`), { status: 200, text: FILES[n - 1] }, `version ${n}`);
  }
  const compared = await app.api.post(
    `${V1}/resources/${id}/query`,
    { sql: 'SELECT (SELECT count(*) FROM version_1)::INTEGER AS first, (SELECT count(*) FROM data)::INTEGER AS now' },
    await asNewUser('linked-reader'),
  );
  t.deepEqual(compared.body.rows, [{ first: 2, now: 3 }]);
  const keys = await objectKeys(app, id);
  t.is(keys.filter((k) => k.startsWith('sources/')).length, 3, 'one fetched copy per version; the repeated fetch left none');
});

test('a new version whose columns are unchanged lists no schema changes and is not breaking', async (t) => {
  const same = await threeVersions(app, 'schema-same');
  const versions = (await app.api.get(`${V1}/resources/${same}/versions`)).body.results;
  t.deepEqual(
    versions.map(
      (v: { schemaChanges: { breaking: boolean; changes: unknown[] } | null }) =>
        v.schemaChanges && [v.schemaChanges.breaking, v.schemaChanges.changes.length],
    ),
    [[false, 0], [false, 0], null],
  );
});
