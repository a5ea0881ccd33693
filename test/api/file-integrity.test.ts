import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import test, { type ExecutionContext } from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { as, type TestUser } from '../helpers/client.ts';
import { startFileServer } from '../helpers/file-server.ts';
import { s3Env } from '../helpers/minio.ts';
import { settledPipeline } from '../helpers/pipeline.ts';
import { isProblem } from '../helpers/problem.ts';

/**
 * A publisher's file is never lost, mixed up or served stale (issue 16, gaps 1 to 4): upload URLs write
 * to sessions that only upload-complete makes live, a re-run keeps serving the previous preview until
 * the new one is ready, and another link stops serving what the old one gave. Each test runs on both
 * object stores.
 */

const STORES = ['local', 'minio'] as const;
type Store = (typeof STORES)[number];
const V1 = '/api/v1';

interface Site {
  app: TestApp;
  editor: TestUser;
}
const sites = {} as Record<Store, Site>;
let linkServer: Awaited<ReturnType<typeof startFileServer>>;

const OLD = Buffer.from('city,people\nLyon,522000\nNantes,320000\n');
const NEW = Buffer.from('river,length_km,country\nLoire,1006,FR\nRhine,1233,DE\nDanube,2850,AT\n');
/** Words found nowhere else in this file's catalog, so a search for them finds only the link's dataset. */
const LINK_OLD = Buffer.from('town,people\nQuimper,63000\nMorlaix,15000\n');
const LINK_NEW = Buffer.from('stream,length_km\nGaronne,529\nDordogne,483\n');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

test.before(async () => {
  linkServer = await startFileServer({
    '/old.csv': (_req, res) => void res.writeHead(200, { 'Content-Type': 'text/csv' }).end(LINK_OLD),
    '/new.csv': (_req, res) => void res.writeHead(200, { 'Content-Type': 'text/csv' }).end(LINK_NEW),
  });
  await Promise.all(
    STORES.map(async (store) => {
      // The files here replace each other with other columns: the schema-change hold (schema-hold.test.ts)
      // would keep the first served, where these tests follow the bytes.
      const app = await startTestApp({
        ...(store === 'minio' ? s3Env() : {}),
        FETCH_ALLOW_PRIVATE_NETWORKS: 'true',
        SCHEMA_CHANGE_HOLD: 'false',
      });
      sites[store] = { app, editor: await app.api.newUser(`integrity-${store}`) };
    }),
  );
});
test.after.always(async () => {
  await Promise.all(Object.values(sites).map((site) => site.app.stop()));
  await linkServer?.close();
});

let counter = 0;

/** A resource of a new public dataset whose organization has the site's editor as editor. */
async function newResource(t: ExecutionContext, site: Site, resource: Record<string, unknown>): Promise<string> {
  const admin = { token: site.app.adminToken };
  const n = ++counter;
  const org = await site.app.api.post(`${V1}/organizations`, { name: `integrity-org-${n}` }, admin);
  t.is(org.status, 201, org.text);
  t.is(
    (await site.app.api.post(`${V1}/organizations/${org.body.name}/members`, { user: site.editor.id, role: 'editor' }, admin)).status,
    201,
  );
  const dataset = await site.app.api.post(
    `${V1}/packages`,
    { name: `integrity-ds-${n}`, title: 'Integrity', ownerOrg: org.body.name, licenseId: 'cc-by-4.0', resources: [resource] },
    as(site.editor),
  );
  t.is(dataset.status, 201, dataset.text);
  return dataset.body.resources[0].id;
}

const call = async (url: string, init: RequestInit) => {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
};

async function proxiedUpload(site: Site, id: string, bytes: Buffer, headers: Record<string, string> = {}) {
  return call(`${site.app.url}${V1}/resources/${id}/upload`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${site.editor.token}`, 'Content-Type': 'text/csv', ...headers },
    body: new Uint8Array(bytes),
  });
}

async function issueUrl(t: ExecutionContext, site: Site, id: string, size: number) {
  const issued = await site.app.api.post(
    `${V1}/resources/${id}/upload-url`,
    { filename: 'next.csv', contentType: 'text/csv', size },
    as(site.editor),
  );
  t.is(issued.status, 200, issued.text);
  return issued.body as { url: string; headers: Record<string, string> };
}

const putTo = (issued: { url: string; headers: Record<string, string> }, bytes: Buffer) =>
  call(issued.url, { method: 'PUT', headers: issued.headers, body: new Uint8Array(bytes) });

const download = async (site: Site, id: string) =>
  Buffer.from(await (await fetch(`${site.app.url}${V1}/resources/${id}/download`)).arrayBuffer());
const resource = async (site: Site, id: string) => (await site.app.api.get(`${V1}/resources/${id}`)).body;
const columns = async (site: Site, id: string) => {
  const schema = (await site.app.api.get(`${V1}/resources/${id}/schema`)).body;
  return schema.queryable ? (schema.schema.columns as Array<{ name: string }>).map((c) => c.name) : null;
};

async function objects(site: Site, id: string) {
  const keys: string[] = [];
  for await (const object of site.app.almanac.services.storage.list(`resources/${id}/`))
    keys.push(object.key.slice(`resources/${id}/`.length));
  return keys.sort();
}

const settled = (site: Site, id: string) => settledPipeline(site.app.api, id, as(site.editor), { succeeded: true });

for (const store of STORES) {
  const isLocal = store === 'local';

  test(`[${store}] bytes PUT to an upload URL are not served until upload-complete verifies them: the published file, its hash and its preview stay`, async (t) => {
    const site = sites[store];
    const id = await newResource(t, site, { urlType: 'upload', name: 'Cities', format: 'CSV' });
    t.is((await proxiedUpload(site, id, OLD)).status, 200);
    await settled(site, id);

    const issued = await issueUrl(t, site, id, NEW.length);
    const put = await putTo(issued, NEW);
    t.true(put.status >= 200 && put.status < 300, put.text);
    t.deepEqual(await download(site, id), OLD, 'a PUT alone replaces nothing');
    t.like(await resource(site, id), { size: OLD.length, hash: sha256(OLD) });
    t.deepEqual(await columns(site, id), ['city', 'people']);

    const done = await site.app.api.post(`${V1}/resources/${id}/upload-complete`, undefined, as(site.editor));
    t.is(done.status, 200, done.text);
    t.like(done.body, { size: NEW.length, hash: sha256(NEW) });
    t.deepEqual(await download(site, id), NEW);
    await settled(site, id);
    t.deepEqual(await columns(site, id), ['river', 'length_km', 'country']);
    const files = (await objects(site, id)).filter((key) => !key.startsWith('previews/') && key !== 'contents.txt');
    t.is(files.length, 2, 'the staged bytes are gone; the old file stays, as version 1 (issue 30 §2)');
    t.true(files.every((key) => key.startsWith('files/')));
    const versionOne = await fetch(`${site.app.url}${V1}/resources/${id}/versions/1/download`);
    t.deepEqual(Buffer.from(await versionOne.arrayBuffer()), OLD);
  });

  test(`[${store}] once upload-complete has run, its upload URL can no longer change the file${isLocal ? ' (409 upload_session_closed)' : ''}, nor can a URL a newer one replaced`, async (t) => {
    const site = sites[store];
    const id = await newResource(t, site, { urlType: 'upload', name: 'Cities', format: 'CSV' });
    const first = await issueUrl(t, site, id, OLD.length);
    t.true((await putTo(first, OLD)).status < 300);
    t.is((await site.app.api.post(`${V1}/resources/${id}/upload-complete`, undefined, as(site.editor))).status, 200);
    await settled(site, id);

    const forged = Buffer.from(OLD.toString().replace('Lyon', 'Evil'));
    const again = await putTo(first, forged);
    if (isLocal) isProblem(t, again, 409, 'upload_session_closed');
    t.deepEqual(await download(site, id), OLD);
    t.like(await resource(site, id), { hash: sha256(OLD) });

    // A newer URL closes the older one's session: completing takes only the newest.
    const older = await issueUrl(t, site, id, NEW.length);
    const newer = await issueUrl(t, site, id, NEW.length);
    const late = await putTo(older, NEW);
    if (isLocal) isProblem(t, late, 409, 'upload_session_closed');
    isProblem(t, await site.app.api.post(`${V1}/resources/${id}/upload-complete`, undefined, as(site.editor)), 409, 'conflict');
    t.true((await putTo(newer, NEW)).status < 300);
    t.is((await site.app.api.post(`${V1}/resources/${id}/upload-complete`, undefined, as(site.editor))).status, 200);
    t.deepEqual(await download(site, id), NEW);
  });

  test(`[${store}] bytes of another size than the upload URL declared are refused with 400 upload_size_mismatch${isLocal ? ' at the PUT' : ' at upload-complete'}, and the file stays`, async (t) => {
    const site = sites[store];
    const id = await newResource(t, site, { urlType: 'upload', name: 'Cities', format: 'CSV' });
    t.is((await proxiedUpload(site, id, OLD)).status, 200);
    await settled(site, id);
    const issued = await issueUrl(t, site, id, NEW.length - 1);
    const put = await putTo(issued, NEW);
    if (isLocal) {
      isProblem(t, put, 400, 'upload_size_mismatch');
      isProblem(t, await site.app.api.post(`${V1}/resources/${id}/upload-complete`, undefined, as(site.editor)), 409, 'conflict');
    } else {
      t.true(put.status < 300, 'S3 cannot hold a presigned PUT to a size');
      isProblem(
        t,
        await site.app.api.post(`${V1}/resources/${id}/upload-complete`, undefined, as(site.editor)),
        400,
        'upload_size_mismatch',
      );
    }
    t.deepEqual(await download(site, id), OLD);
    t.like(await resource(site, id), { size: OLD.length, hash: sha256(OLD) });
    t.deepEqual(
      (await objects(site, id)).filter((key) => key.startsWith('uploads/') || key.startsWith('files/')).length,
      1,
      'the refused bytes are not kept',
    );
  });

  test(`[${store}] a re-run keeps the previous preview queryable until its own is ready, then only the new preview object remains`, async (t) => {
    const site = sites[store];
    const id = await newResource(t, site, { urlType: 'upload', name: 'Cities', format: 'CSV' });
    t.is((await proxiedUpload(site, id, OLD)).status, 200);
    await settled(site, id);
    const before = (await resource(site, id)).extras.preview.key as string;

    t.is((await site.app.api.post(`${V1}/resources/${id}/run-pipeline`, undefined, as(site.editor))).status, 202);
    // Whatever point the run has reached, the resource stays queryable.
    const query = await site.app.api.post(
      `${V1}/resources/${id}/query`,
      { sql: 'SELECT count(*)::INTEGER AS n FROM data' },
      as(site.editor),
    );
    t.is(query.status, 200, query.text);
    t.deepEqual(query.body.rows, [{ n: 2 }]);
    t.deepEqual(await columns(site, id), ['city', 'people']);

    await settled(site, id);
    const after = (await resource(site, id)).extras.preview.key as string;
    t.not(after, before, 'each run writes its own preview');
    t.deepEqual(
      (await objects(site, id)).filter((key) => key.startsWith('previews/')),
      [after.slice(`resources/${id}/`.length)],
    );
  });

  test(`[${store}] a PUT that points a link elsewhere stops serving the old preview, schema and file text at once, and the pipeline runs over the new link`, async (t) => {
    const site = sites[store];
    const id = await newResource(t, site, { urlType: 'link', url: `${linkServer.url}/old.csv`, name: 'Cities', format: 'CSV' });
    t.is((await site.app.api.post(`${V1}/resources/${id}/run-pipeline`, undefined, as(site.editor))).status, 202);
    await settled(site, id);
    t.deepEqual(await columns(site, id), ['town', 'people']);

    const put = await site.app.api.put(
      `${V1}/resources/${id}`,
      { urlType: 'link', url: `${linkServer.url}/new.csv`, name: 'Rivers', format: 'CSV' },
      as(site.editor),
    );
    t.is(put.status, 200, put.text);
    t.notDeepEqual(await columns(site, id), ['town', 'people'], 'the old schema is never served for the new link');
    await settled(site, id);
    t.deepEqual(await columns(site, id), ['stream', 'length_km']);
    const preview = await fetch(`${site.app.url}${V1}/resources/${id}/preview`);
    t.deepEqual(Buffer.from(await preview.arrayBuffer()), LINK_NEW);
    const found = await site.app.api.get(`${V1}/packages?q=Quimper&semantic=false`);
    t.is(found.body.count, 0, 'the old file text is out of search');
    t.is((await site.app.api.get(`${V1}/packages?q=Garonne&semantic=false`)).body.count, 1);
  });

  test(`[${store}] a file name with a control character is 422 before any byte is stored`, async (t) => {
    const site = sites[store];
    const id = await newResource(t, site, { urlType: 'upload', name: 'Cities', format: 'CSV' });
    const res = await proxiedUpload(site, id, OLD, { 'Content-Disposition': "attachment; filename*=UTF-8''a%00b.csv" });
    isProblem(t, res, 422, 'validation_failed');
    t.deepEqual(await objects(site, id), []);
    t.like(await resource(site, id), { url: null, size: null });
  });
}

for (const store of STORES) {
  test(`[${store}] the orphan sweep reports objects no record serves, removes those older than olderThanSeconds, and keeps every live file`, async (t) => {
    const site = sites[store];
    const admin = { token: site.app.adminToken };
    const storage = site.app.almanac.services.storage;
    const id = await newResource(t, site, { urlType: 'upload', name: 'Cities', format: 'CSV' });
    t.is((await proxiedUpload(site, id, OLD)).status, 200);
    await settled(site, id);
    // A query leaves (as the admin: the editor's one-query-at-a-time lock is busy in the other tests) a local copy of the preview; a re-run makes a new preview, so that copy is served no more.
    t.is((await site.app.api.post(`${V1}/resources/${id}/query`, { sql: 'SELECT 1 AS one FROM data' }, admin)).status, 200);
    t.is((await site.app.api.post(`${V1}/resources/${id}/run-pipeline`, undefined, as(site.editor))).status, 202);
    await settled(site, id);

    // What writes that landed too late leave: bytes for a resource that is gone, a session nobody completes.
    const gone = `resources/00000000-0000-4000-8000-${String(++counter).padStart(12, '0')}/files/abc`;
    const stray = `resources/${id}/uploads/never-issued`;
    for (const key of [gone, stray]) await storage.put(key, Readable.from([Buffer.from('late bytes')]));

    isProblem(t, await site.app.api.get(`${V1}/admin/storage/orphans`), 401, 'unauthenticated');
    isProblem(t, await site.app.api.get(`${V1}/admin/storage/orphans`, as(site.editor)), 403, 'forbidden');
    const report = await site.app.api.get(`${V1}/admin/storage/orphans`, admin);
    t.is(report.status, 200, report.text);
    const reasons = Object.fromEntries((report.body.orphans as Array<{ key: string; reason: string }>).map((o) => [o.key, o.reason]));
    t.is(reasons[gone], 'its resource no longer exists');
    t.is(reasons[stray], 'bytes sent to an upload URL after its upload was completed or replaced');
    t.true(
      Object.entries(reasons).some(
        ([key, reason]) => key.startsWith('query-cache/') && reason === 'a query copy of a preview no longer served',
      ),
      JSON.stringify(reasons),
    );
    t.false(
      Object.keys(reasons).some((key) => key.startsWith(`resources/${id}/`) && key !== stray),
      'no live object is an orphan',
    );
    t.is(report.body.removedCount, 0);

    const young = await site.app.api.delete(`${V1}/admin/storage/orphans`, admin);
    t.is(young.status, 200, young.text);
    t.is(young.body.removedCount, 0, 'orphans younger than an hour may belong to a write in progress');
    const swept = await site.app.api.delete(`${V1}/admin/storage/orphans?olderThanSeconds=0`, admin);
    t.is(swept.status, 200, swept.text);
    t.is(swept.body.removedCount, swept.body.orphanCount);
    t.is(await storage.stat(gone), null);
    t.is(await storage.stat(stray), null);
    t.is((await site.app.api.get(`${V1}/admin/storage/orphans`, admin)).body.orphanCount, 0);
    t.deepEqual(await download(site, id), OLD);
    const query = await site.app.api.post(
      `${V1}/resources/${id}/query`,
      { sql: 'SELECT count(*)::INTEGER AS n FROM data' },
      as(site.editor),
    );
    t.deepEqual(query.body.rows, [{ n: 2 }]);
  });
}

for (const store of STORES) {
  test(`[${store}] a .txt of prose declared TXT is not queryable, but its text is extracted and found by search`, async (t) => {
    const site = sites[store];
    const id = await newResource(t, site, { urlType: 'upload', name: 'Chapter one', format: 'TXT' });
    const prose =
      'It was a bright cold day in April, and the clocks were striking thirteen.\n' +
      `Winston Smith, his chin nuzzled into his breast, slipped quickly through the glass doors of Zanzibar Mansions ${store}.\n` +
      'The hallway smelt of boiled cabbage and old rag mats, and a coloured poster was tacked to the wall.\n';
    const up = await proxiedUpload(site, id, Buffer.from(prose), {
      'Content-Type': 'text/plain',
      'Content-Disposition': 'attachment; filename="chapter.txt"',
    });
    t.is(up.status, 200, up.text);
    const status = await settled(site, id);
    t.deepEqual(
      status.steps.map((s: { name: string; status: string }) => [s.name, s.status]),
      [
        ['inspect', 'succeeded'],
        ['preview', 'skipped'],
        ['text', 'succeeded'],
        ['index', 'succeeded'],
      ],
    );
    t.deepEqual((await site.app.api.get(`${V1}/resources/${id}/schema`)).body, { id, queryable: false, schema: null });
    isProblem(
      t,
      await site.app.api.post(`${V1}/resources/${id}/query`, { sql: 'SELECT * FROM data' }, as(site.editor)),
      400,
      'not_queryable',
    );
    t.like(await resource(site, id), { format: 'TXT', extras: { queryable: false, detected: { format: 'TXT', tabular: null } } });
    t.is((await site.app.api.get(`${V1}/packages?q=Zanzibar&semantic=false`)).body.count, 1);
  });
}

for (const store of STORES) {
  test(`[${store}] a content type with tabs before its parameters (as HTTP allows) gets an upload URL, signed with spaces, that takes the bytes`, async (t) => {
    const site = sites[store];
    const id = await newResource(t, site, { name: 'Tabbed', urlType: 'upload', format: 'csv' });
    const issued = await site.app.api.post(
      `${V1}/resources/${id}/upload-url`,
      { filename: 'tabbed.csv', contentType: 'text/csv\t \t; charset=utf-8', size: NEW.length },
      as(site.editor),
    );
    t.is(issued.status, 200, issued.text);
    t.is(issued.body.headers['Content-Type'], 'text/csv   ; charset=utf-8');
    const put = await putTo(issued.body, NEW);
    t.true(put.status < 300, put.text);
    const done = await site.app.api.post(`${V1}/resources/${id}/upload-complete`, undefined, as(site.editor));
    t.is(done.status, 200, done.text);
  });
}

for (const store of STORES) {
  // Serial: it removes every orphan of the site, which the other tests' stray objects must not race.
  test.serial(`[${store}] the scheduled sweep-storage job removes orphans, and every start keeps its daily schedule`, async (t) => {
    const site = sites[store];
    const { client } = site.app.almanac.services.jobs;
    const schedule = await client.schedule.getHandle('sweep-storage').describe();
    t.like(schedule.action, { type: 'startWorkflow', workflowType: 'sweepStorageWorkflow', workflowId: 'sweep-storage' });
    t.is(schedule.spec.intervals?.[0]?.every, 86_400_000);

    const stray = `resources/00000000-0000-4000-8000-${String(++counter).padStart(12, '0')}/uploads/late`;
    await site.app.almanac.services.storage.put(stray, Readable.from([Buffer.from('late bytes')]));
    const counts = await client.workflow.execute('sweepStorageWorkflow', {
      workflowId: `sweep-storage-test-${store}`,
      taskQueue: site.app.almanac.services.config.temporal.taskQueue,
      args: [{ olderThanSeconds: 0 }],
    });
    t.true(counts.removedCount >= 1, JSON.stringify(counts));
    t.is(counts.removedCount, counts.orphanCount);
    t.is(await site.app.almanac.services.storage.stat(stray), null);
  });
}
