import { createHash } from 'node:crypto';
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import type { Auth } from '../helpers/client.ts';
import { ckanGet, resultOf } from '../helpers/ckan.ts';
import { settledPipeline, uploadAndProcess } from '../helpers/pipeline.ts';
import { isProblem } from '../helpers/problem.ts';
import { startFileServer } from '../helpers/file-server.ts';

/**
 * The schema-change hold over HTTP (issue 30 §3): a breaking version of a published resource waits for its
 * editor while the version before it stays served (file, preview, schema, queries); accepting serves it,
 * declining keeps the old one. Drafts and compatible changes are served at once.
 */

const V1 = '/api/v1';
let app: TestApp;
/** A site with the hold off. */
let unheld: TestApp;
let unheldAdmin: Auth;
let editor: Auth;
let outsider: Auth;

const V1_FILE = 'id,city,people\n1,Brest,139000\n2,Quimper,63000\n';
/** `city` renamed `town` (same values): breaking. */
const RENAMED = 'id,town,people\n1,Brest,140000\n2,Quimper,63000\n';
/** `people` dropped: breaking. */
const DROPPED = 'id,town,region\n1,Brest,BZH\n2,Quimper,BZH\n';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function newResource(name: string, draft = false, site = app) {
  const auth = site === app ? editor : { token: site.adminToken };
  const dataset = { name, ownerOrg: 'hold-org', licenseId: 'cc-by-4.0' };
  const created = await site.api.post(draft ? `${V1}/packages/drafts` : `${V1}/packages`, dataset, auth);
  if (created.status !== 201) throw new Error(created.text);
  const resource = await site.api.post(
    `${V1}/packages/${created.body.id}/resources`,
    { urlType: 'upload', name: 'towns.csv', format: 'CSV' },
    auth,
  );
  if (resource.status !== 201) throw new Error(resource.text);
  await uploadAndProcess(site.api, resource.body.id, V1_FILE, auth);
  return resource.body.id as string;
}

const download = async (id: string) =>
  (await fetch(`${app.url}${V1}/resources/${id}/download`, { headers: { Authorization: `Bearer ${editor.token}` } })).text();
const columnsOf = async (id: string) =>
  (await app.api.get(`${V1}/resources/${id}/schema`)).body.schema.columns.map((c: { name: string }) => c.name) as string[];
const reviews = async (id: string) =>
  (await app.api.get(`${V1}/resources/${id}/versions`, editor)).body.results.map(
    (v: { version: number; current: boolean; review: string | null }) => [v.version, v.current, v.review],
  );

/** What the link server's /towns.csv answers now. */
let linked = '';
let linkServer: Awaited<ReturnType<typeof startFileServer>>;

test.before(async () => {
  linkServer = await startFileServer({
    '/towns.csv': (_req, res) => void res.writeHead(200, { 'Content-Type': 'text/csv' }).end(linked),
    '/rivers.csv': (_req, res) => void res.writeHead(200, { 'Content-Type': 'text/csv' }).end('river,km\nLoire,1006\n'),
  });
  [app, unheld] = await Promise.all([
    startTestApp({ FETCH_ALLOW_PRIVATE_NETWORKS: 'true' }),
    startTestApp({ SCHEMA_CHANGE_HOLD: 'false' }),
  ]);
  unheldAdmin = { token: unheld.adminToken };
  await unheld.api.post(`${V1}/organizations`, { name: 'hold-org' }, unheldAdmin);
  const user = await app.api.newUser('hold-editor');
  editor = { token: user.token };
  outsider = { token: (await app.api.newUser('hold-outsider')).token };
  await app.api.post(`${V1}/organizations`, { name: 'hold-org' }, { token: app.adminToken });
  await app.api.post(`${V1}/organizations/hold-org/members`, { user: user.id, role: 'editor' }, { token: app.adminToken });
});
test.after.always(async () => {
  await Promise.all([app?.stop(), unheld?.stop(), linkServer?.close()]);
});

test('a rename in a published resource is held: the old file, schema and queries stay served until the editor accepts', async (t) => {
  const id = await newResource('held-rename');
  await uploadAndProcess(app.api, id, RENAMED, editor);

  t.deepEqual(await reviews(id), [
    [2, false, 'pending'],
    [1, true, null],
  ]);
  const resource = (await app.api.get(`${V1}/resources/${id}`)).body;
  t.like(resource, { hash: sha256(V1_FILE), size: V1_FILE.length, extras: { queryable: true, pendingVersion: { version: 2 } } });
  t.like(resource.extras.pendingVersion.schemaChanges, {
    breaking: true,
    changes: [{ kind: 'renamed', column: 'town', previousName: 'city' }],
  });
  t.is(await download(id), V1_FILE);
  t.deepEqual(await columnsOf(id), ['id', 'city', 'people']);
  const reader = { token: (await app.api.newUser('hold-reader')).token };
  const served = await app.api.post(`${V1}/resources/${id}/query`, { sql: 'SELECT city FROM data ORDER BY id' }, reader);
  t.is(served.status, 200, served.text);
  t.deepEqual(served.body.rows, [{ city: 'Brest' }, { city: 'Quimper' }]);
  // Consumers may try their scripts on the held version before it is served.
  const tried = await app.api.post(
    `${V1}/resources/${id}/versions/2/query`,
    { sql: 'SELECT town FROM data ORDER BY id LIMIT 1' },
    outsider,
  );
  t.is(tried.status, 200, tried.text);
  t.deepEqual(tried.body.rows, [{ town: 'Brest' }]);
  // CKAN clients see it on the resource dict, as a resource extra.
  const ckan = resultOf(await ckanGet(app.api, 'resource_show', { id }));
  t.like(ckan, { hash: sha256(V1_FILE), schema_change_pending: { version: 2, breaking: true } });

  isProblem(t, await app.api.post(`${V1}/resources/${id}/versions/2/accept`, {}), 401, 'unauthenticated');
  isProblem(t, await app.api.post(`${V1}/resources/${id}/versions/2/accept`, {}, outsider), 403, 'forbidden');
  isProblem(t, await app.api.post(`${V1}/resources/${id}/versions/1/accept`, {}, editor), 409, 'conflict');

  const accepted = await app.api.post(`${V1}/resources/${id}/versions/2/accept`, {}, editor);
  t.is(accepted.status, 200, accepted.text);
  t.like(accepted.body, { version: 2, current: true, review: 'accepted' });
  t.truthy(accepted.body.reviewedAt);
  t.is(await download(id), RENAMED);
  t.deepEqual(await columnsOf(id), ['id', 'town', 'people']);
  const after = (await app.api.get(`${V1}/resources/${id}`)).body;
  t.like(after, { hash: sha256(RENAMED), size: RENAMED.length });
  t.false('pendingVersion' in after.extras && after.extras.pendingVersion !== null);
  // The run that refreshes the text and the index adds no version.
  await settledPipeline(app.api, id, editor, { succeeded: true });
  t.deepEqual(await reviews(id), [
    [2, true, 'accepted'],
    [1, false, null],
  ]);
  const now = await app.api.post(`${V1}/resources/${id}/query`, { sql: 'SELECT town FROM data ORDER BY id LIMIT 1' }, reader);
  t.deepEqual(now.body.rows, [{ town: 'Brest' }]);
  isProblem(t, await app.api.post(`${V1}/resources/${id}/versions/2/decline`, {}, editor), 409, 'conflict');

  // Who changed what: the hold put the old file back (the system), the editor's acceptance served the new one.
  const activity = (await app.api.get(`${V1}/packages/held-rename/activity`, editor)).body.results;
  const hashes = activity
    .map((a: { changes: Array<{ path: string; after: unknown }> }) => a.changes.find((c) => c.path === `resources.${id}.hash`)?.after)
    .filter(Boolean);
  t.deepEqual(hashes.slice(0, 3), [sha256(RENAMED), sha256(V1_FILE), sha256(RENAMED)]);
});

test('declining keeps the served version; a compatible change after it is served at once and supersedes nothing', async (t) => {
  const id = await newResource('held-decline');
  await uploadAndProcess(app.api, id, RENAMED, editor);
  const declined = await app.api.post(`${V1}/resources/${id}/versions/2/decline`, {}, editor);
  t.is(declined.status, 200, declined.text);
  t.like(declined.body, { version: 2, current: false, review: 'declined' });
  t.is(await download(id), V1_FILE);
  t.falsy((await app.api.get(`${V1}/resources/${id}`)).body.extras.pendingVersion);
  isProblem(t, await app.api.post(`${V1}/resources/${id}/versions/2/accept`, {}, editor), 409, 'conflict');

  // Against version 1 (still served), a file with an added column is compatible: served at once.
  await uploadAndProcess(app.api, id, 'id,city,people,region\n1,Brest,1,BZH\n', editor);
  t.deepEqual(await reviews(id), [
    [3, true, null],
    [2, false, 'declined'],
    [1, false, null],
  ]);
  t.deepEqual(await columnsOf(id), ['id', 'city', 'people', 'region']);
});

test('newer bytes supersede a held version; its diff is against the version served, not the held one', async (t) => {
  const id = await newResource('held-superseded');
  await uploadAndProcess(app.api, id, RENAMED, editor);
  await uploadAndProcess(app.api, id, DROPPED, editor);
  t.deepEqual(await reviews(id), [
    [3, false, 'pending'],
    [2, false, 'superseded'],
    [1, true, null],
  ]);
  const [held] = (await app.api.get(`${V1}/resources/${id}/versions`)).body.results;
  t.deepEqual(
    held.schemaChanges.changes
      .filter((c: { kind: string }) => c.kind !== 'moved')
      .map((c: { kind: string; column: string }) => `${c.kind} ${c.column}`)
      .sort(),
    ['added region', 'removed people', 'renamed town'],
  );
  t.true(held.schemaChanges.breaking);
  // Any two versions compare: a script written for version 2 meets a dropped column in version 3.
  const since2 = await app.api.get(`${V1}/resources/${id}/versions/3/schema-changes?from=2`);
  t.is(since2.status, 200, since2.text);
  t.like(since2.body, { resourceId: id, from: 2, version: 3, breaking: true });
  t.deepEqual(
    since2.body.changes
      .filter((c: { kind: string }) => c.kind !== 'moved')
      .map((c: { kind: string; column: string }) => `${c.kind} ${c.column}`),
    ['removed people', 'added region'],
  );
  t.like((await app.api.get(`${V1}/resources/${id}/versions/1/schema-changes?from=1`)).body, { breaking: false, changes: [] });
  isProblem(t, await app.api.get(`${V1}/resources/${id}/versions/3/schema-changes?from=9`), 404, 'not_found');
  isProblem(t, await app.api.get(`${V1}/resources/${id}/versions/3/schema-changes`), 400, 'invalid_parameters');
  isProblem(t, await app.api.post(`${V1}/resources/${id}/versions/2/accept`, {}, editor), 409, 'conflict');
  t.is((await app.api.post(`${V1}/resources/${id}/versions/3/accept`, {}, editor)).status, 200);
  t.is(await download(id), DROPPED);
});

test('a link: new columns at the same address are held; the link pointed elsewhere by its editor is not', async (t) => {
  const created = await app.api.post(`${V1}/packages`, { name: 'held-link', ownerOrg: 'hold-org', licenseId: 'cc-by-4.0' }, editor);
  const link = await app.api.post(
    `${V1}/packages/${created.body.id}/resources`,
    { urlType: 'link', url: `${linkServer.url}/towns.csv`, name: 'towns', format: 'CSV' },
    editor,
  );
  const id = link.body.id as string;
  const run = async () => {
    t.is((await app.api.post(`${V1}/resources/${id}/run-pipeline`, undefined, editor)).status, 202);
    await settledPipeline(app.api, id, editor, { succeeded: true });
  };
  linked = V1_FILE;
  await run();
  linked = RENAMED;
  await run();
  t.deepEqual(await reviews(id), [
    [2, false, 'pending'],
    [1, true, null],
  ]);
  t.deepEqual(await columnsOf(id), ['id', 'city', 'people']);
  const preview = await fetch(`${app.url}${V1}/resources/${id}/preview`);
  t.is(await preview.text(), V1_FILE, 'the copy fetched for the served version');

  // Pointed elsewhere: the download goes there already, so its data is served, and the held one superseded.
  const put = await app.api.put(
    `${V1}/resources/${id}`,
    { urlType: 'link', url: `${linkServer.url}/rivers.csv`, name: 'towns', format: 'CSV' },
    editor,
  );
  t.is(put.status, 200, put.text);
  await settledPipeline(app.api, id, editor, { succeeded: true });
  t.deepEqual(await reviews(id), [
    [3, true, null],
    [2, false, 'superseded'],
    [1, false, null],
  ]);
  t.deepEqual(await columnsOf(id), ['river', 'km']);
});

test('a draft, and a published resource whose change is compatible, serve the new version at once', async (t) => {
  const draft = await newResource('hold-draft', true);
  await uploadAndProcess(app.api, draft, RENAMED, editor);
  t.deepEqual(await reviews(draft), [
    [2, true, null],
    [1, false, null],
  ]);
  t.is(await download(draft), RENAMED);

  const id = await newResource('hold-compatible');
  await uploadAndProcess(app.api, id, 'id,city,people,region\n1,Brest,139000,BZH\n', editor);
  t.deepEqual(await reviews(id), [
    [2, true, null],
    [1, false, null],
  ]);
});

test('with the hold off, each version carries its schema changes against the one before and is served at once: a rename and a dropped column are breaking', async (t) => {
  const id = await newResource('schema-changes', false, unheld);
  await uploadAndProcess(unheld.api, id, 'id,town,people,region\n1,Brest,139000,BZH\n2,Quimper,63000,BZH\n', unheldAdmin);
  await uploadAndProcess(unheld.api, id, DROPPED, unheldAdmin);
  const list = await unheld.api.get(`${V1}/resources/${id}/versions`);
  t.is(list.status, 200, list.text);
  const [third, second, first] = list.body.results;
  t.is(first.schemaChanges, null);
  t.like(second.schemaChanges, { breaking: true });
  t.deepEqual(
    second.schemaChanges.changes.map((c: { kind: string; column: string; impact: string }) => [c.kind, c.column, c.impact]),
    [
      ['renamed', 'town', 'breaking'],
      ['added', 'region', 'compatible'],
    ],
  );
  t.deepEqual(
    third.schemaChanges.changes
      .map((c: { kind: string; column: string; impact: string }) => [c.kind, c.column, c.impact])
      .filter(([kind]: string[]) => kind !== 'moved'),
    [['removed', 'people', 'breaking']],
  );
  // The resource's page lists the versions with their row counts and column changes, breaking ones marked.
  t.deepEqual(
    list.body.results.map((v: { review: string | null; current: boolean }) => [v.review, v.current]),
    [
      [null, true],
      [null, false],
      [null, false],
    ],
  );
  const page = await unheld.api.get(`/dataset/schema-changes/resource/${id}`, { headers: { Accept: 'text/html' } });
  t.is(page.status, 200);
  t.regex(page.text, /<h2 id="versions-heading">Versions<\/h2>/);
  t.regex(page.text, /class="change breaking">city renamed town</);
  t.regex(page.text, /class="change breaking">people removed</);
  t.regex(page.text, />v3<\/a><span class="badge">Current</);
});
