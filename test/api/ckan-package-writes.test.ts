import test from 'ava';
import { applyHarvestPage } from '../../src/domain/harvest/apply.ts';
import { startTestAppWithPeople, until, type TestApp } from '../helpers/app.ts';
import { ACTION, ckanGet, ckanPost, resultOf } from '../helpers/ckan.ts';
import { anonymous, as, type Auth, type TestUser } from '../helpers/client.ts';
import { groupWithMembers, CATEGORIES, ORGANIZATIONS } from '../helpers/groups.ts';
import { CUSTOM_FIELDS, PROFILE, RECORD, RECORD_CKAN_NAMES } from '../helpers/metadata-record.ts';
import { domainContext, harvestRecord, makeRun, makeSource } from '../helpers/harvest-domain.ts';

/**
 * CKAN's write actions on datasets and resources over HTTP (issue 29 §1): each through REST's domain
 * function and rule, CKAN's dicts in and out (the record, extras and profile fields included), CKAN's
 * error envelope and Validation Error shape, nothing half-written.
 */

let app: TestApp;
let editor: TestUser;
let member: TestUser;
let otherEditor: TestUser;
let outsider: TestUser;
let editorAuth: Auth;

test.before(async (t) => {
  let people;
  ({ app, people } = await startTestAppWithPeople('ckw', ['editor', 'member', 'otherEditor', 'outsider']));
  ({ editor, member, otherEditor, outsider } = people);
  editorAuth = as(editor);
  await groupWithMembers(t, app, ORGANIZATIONS, { name: 'pw-org', title: 'Writers' }, { editor, member });
  await groupWithMembers(t, app, ORGANIZATIONS, { name: 'pw-other' }, { editor: otherEditor });
  await groupWithMembers(t, app, CATEGORIES, { name: 'pw-cat' }, { member: editor });
});
test.after.always(async () => {
  await app?.stop();
});

/** Every key of the metadata record, under its CKAN name. */
const CKAN_RECORD = Object.fromEntries(Object.entries(RECORD).map(([k, v]) => [RECORD_CKAN_NAMES[k as keyof typeof RECORD], v]));

const post = (action: string, params: Record<string, unknown>, auth: Auth = editorAuth) => ckanPost(app.api, action, params, auth);
const show = async (id: string, auth: Auth = editorAuth) => resultOf(await ckanGet(app.api, 'package_show', { id }, auth));
const rest = (name: string) => app.api.get(`/api/v1/packages/${name}`, app.sysadmin);

/** A package dict as a publisher's script sends it, every kind of value at once. */
const fullDict = (name: string) => ({
  name,
  title: `Title of ${name}`,
  notes: 'Notes',
  owner_org: 'pw-org',
  license_id: 'cc-by',
  url: 'https://example.org/landing',
  version: '1.0',
  author: 'An Author',
  author_email: 'author@example.org',
  maintainer: 'A Maintainer',
  maintainer_email: 'maintainer@example.org',
  tags: [{ name: 'water' }, { name: 'rivers' }],
  groups: [{ name: 'pw-cat' }],
  extras: [
    { key: 'source_system', value: 'legacy' },
    { key: 'b_second', value: '2' },
  ],
  ...CKAN_RECORD,
  department_code: 'W-17',
  resources: [
    { url: 'https://files.example/a.csv', name: 'A', format: 'csv', description: 'first', byte_size: 10, layer: 'x' },
    { url: 'https://files.example/b.json', name: 'B', format: 'JSON' },
  ],
});

test('package_create takes a whole CKAN dict: fields, owner_org by name, tags, groups, extras, record keys, profile fields, resources', async (t) => {
  const created = resultOf(await post('package_create', fullDict('pw-full')));
  t.like(created, {
    name: 'pw-full',
    title: 'Title of pw-full',
    state: 'active',
    private: false,
    license_id: 'cc-by',
    version: '1.0',
    author_email: 'author@example.org',
    department_code: 'W-17',
    num_resources: 2,
  });
  for (const [key, value] of Object.entries(CKAN_RECORD)) t.deepEqual(created[key], value, key);
  t.is(created.organization.name, 'pw-org');
  t.deepEqual(
    created.tags.map((tag: { name: string }) => tag.name),
    ['rivers', 'water'],
  );
  t.deepEqual(
    created.groups.map((g: { name: string }) => g.name),
    ['pw-cat'],
  );
  t.deepEqual(created.extras, [
    { key: 'source_system', value: 'legacy' },
    { key: 'b_second', value: '2' },
  ]);
  t.like(created.resources[0], { name: 'A', format: 'CSV', byte_size: 10, layer: 'x', position: 0 });
  t.like(created.resources[1], { name: 'B', format: 'JSON', position: 1 });
  t.deepEqual(await show('pw-full'), created, 'package_show gives what package_create answered');
  // The same dataset through REST: the record, extras and profile values where REST keeps them.
  const { body } = await rest('pw-full');
  t.like(body, { accrualPeriodicity: 'R/P1Y', customFields: { department_code: 'W-17' } });
  t.deepEqual(body.resources[0].customExtras, [{ key: 'layer', value: 'x' }]);
});

test('a dataset round-trips: package_show → package_update → package_show gives the same dict', async (t) => {
  const before = resultOf(await post('package_create', fullDict('pw-round')));
  const updated = resultOf(await post('package_update', before));
  const after = await show('pw-round');
  t.deepEqual(updated, after);
  const { metadata_modified: _m1, ...restBefore } = before;
  const { metadata_modified: _m2, ...restAfter } = after;
  t.deepEqual(restAfter, restBefore);
  t.deepEqual(
    after.resources.map((r: { metadata_modified: string }) => r.metadata_modified),
    before.resources.map((r: { metadata_modified: string }) => r.metadata_modified),
    'unchanged resources are not written again',
  );
});

test('package_update replaces: a field left out is cleared; resources matched by id, new ones added, missing ones deleted, in the sent order', async (t) => {
  const before = resultOf(await post('package_create', fullDict('pw-replace')));
  const [a, b] = before.resources;
  const sent = {
    id: before.id,
    name: 'pw-replace',
    owner_org: before.owner_org,
    license_id: 'odc-by',
    title: 'New title',
    resources: [
      { id: b.id, url: b.url, name: 'B renamed', format: 'json' },
      { url: 'https://files.example/c.csv', name: 'C' },
    ],
  };
  const updated = resultOf(await post('package_update', sent));
  t.like(updated, { title: 'New title', license_id: 'odc-by', notes: null, version: null, author: null, num_resources: 2 });
  t.is(updated.frequency, undefined, 'a record key left out is cleared');
  t.is(updated.department_code, undefined, 'a profile value left out is cleared');
  t.is(updated.extras.length, 2, 'extras left out are kept');
  t.is(updated.tags.length, 2, 'tags left out are kept');
  t.deepEqual(
    updated.resources.map((r: { name: string }) => r.name),
    ['B renamed', 'C'],
  );
  t.is(updated.resources[0].id, b.id);
  t.not(updated.resources[1].id, a.id);
  t.is((await ckanGet(app.api, 'resource_show', { id: a.id })).status, 404);

  // Refused before anything is written: the fields stay as they were.
  const twice = await post('package_update', { ...updated, title: 'Not written', resources: [...updated.resources, { url: b.url }] });
  t.is(twice.status, 409);
  t.deepEqual(twice.body.error.resources, [{}, {}, { url: ['is already used in this dataset'] }]);
  t.is((await show('pw-replace')).title, 'New title');
});

test('package_update keeps what CKAN keeps when left out: a private dataset stays private, its name stays', async (t) => {
  const created = resultOf(await post('package_create', { ...fullDict('pw-kept'), private: true }));
  t.true(created.private);
  // A script's update by id with the fields it cares about; `private` and `name` left out, as CKAN allows.
  const updated = resultOf(await post('package_update', { id: created.id, owner_org: 'pw-org', license_id: 'cc-by', title: 'Retitled' }));
  t.like(updated, { name: 'pw-kept', private: true, title: 'Retitled', notes: null });
  t.is((await ckanGet(app.api, 'package_show', { id: created.id })).status, 404, 'still hidden from the public');
  // Sent, they change.
  t.false(resultOf(await post('package_update', { ...updated, private: false })).private);
});

test('package_patch changes the given keys only; package_revise matches, filters and merges as CKAN', async (t) => {
  resultOf(await post('package_create', fullDict('pw-patch')));
  const patched = resultOf(await post('package_patch', { id: 'pw-patch', title: 'Patched', extras: [{ key: 'only', value: 'one' }] }));
  t.like(patched, { title: 'Patched', notes: 'Notes', frequency: 'R/P1Y', department_code: 'W-17', num_resources: 2 });
  t.deepEqual(patched.extras, [{ key: 'only', value: 'one' }]);

  const mismatch = await post('package_revise', { match: { name: 'pw-patch', title: 'Not the title' }, update: { notes: 'x' } });
  t.is(mismatch.status, 409);
  t.like(mismatch.body.error, { __type: 'Validation Error', match: ['title'] });

  const revised = resultOf(
    await post('package_revise', {
      match: { name: 'pw-patch', title: 'Patched' },
      filter: ['-resources__1', '-department_code'],
      update: { notes: 'Revised notes' },
      update__resources__extend: [{ url: 'https://files.example/new.csv', name: 'New' }],
      update__resources__0: { description: 'changed first' },
      include: ['+package__name', '+package__notes', '+package__resources', '-package__*'],
    }),
  );
  t.deepEqual(Object.keys(revised.package).sort(), ['name', 'notes', 'resources']);
  t.is(revised.package.notes, 'Revised notes');
  t.deepEqual(
    revised.package.resources.map((r: { name: string; description: string }) => [r.name, r.description]),
    [
      ['A', 'changed first'],
      ['New', null],
    ],
  );
  t.is((await show('pw-patch')).department_code, undefined);
  const flat = resultOf(await post('package_revise', { match__name: 'pw-patch', update__title: 'Flat' }));
  t.is(flat.package.title, 'Flat');
});

test('a __proto__ key in JSON sent as text (package_revise, a form field) never reaches Object.prototype', async (t) => {
  resultOf(await post('package_create', fullDict('pw-proto')));
  const attempts = [
    { match: { name: 'pw-proto' }, update: '{"__proto__": {"polluted": "yes"}}' },
    { match: { name: 'pw-proto' }, update__organization: '{"__proto__": {"polluted": "yes"}}' },
    { match: '{"name": "pw-proto", "__proto__": {"polluted": "yes"}}', update: { notes: 'kept' } },
  ];
  for (const body of attempts) {
    const reply = await post('package_revise', body);
    t.true(reply.status < 500, reply.text);
    t.is(({} as Record<string, unknown>).polluted, undefined, JSON.stringify(body));
  }
  const refused = await post('package_revise', { match: { name: 'pw-proto' }, update: '{"__proto__": {"polluted": "yes"}}' }, anonymous);
  t.is(refused.status, 403, refused.text);
  t.is(({} as Record<string, unknown>).polluted, undefined);
});

test('drafts are CKAN’s state "draft": package_create makes one, package_update with state "active" publishes it', async (t) => {
  const draft = resultOf(
    await post('package_create', { name: 'pw-draft', title: 'Draft', state: 'draft', resources: [{ url: 'https://files.example/d.csv' }] }),
  );
  t.like(draft, { state: 'draft', owner_org: null, num_resources: 1 });
  t.is((await ckanGet(app.api, 'package_show', { id: 'pw-draft' })).status, 404, 'a draft is not in the catalog');
  // The publish is the last step of the update, and refused: the title and the resources written before it go back.
  const notReady = await post('package_update', {
    ...draft,
    title: 'Not kept',
    resources: [{ url: 'https://files.example/other.csv' }],
    state: 'active',
  });
  t.is(notReady.status, 409);
  t.like(notReady.body.error, {
    __type: 'Validation Error',
    owner_org: ['is required to publish'],
    license_id: ['is required to publish'],
  });
  const still = (await app.api.get('/api/v1/packages/pw-draft?state=draft', editorAuth)).body;
  t.like(still, { state: 'draft', title: 'Draft' }, 'still the draft it was');
  t.deepEqual(
    still.resources.map((r: { id: string; url: string }) => [r.id, r.url]),
    [[draft.resources[0].id, 'https://files.example/d.csv']],
  );
  const published = resultOf(await post('package_update', { ...draft, owner_org: 'pw-org', license_id: 'cc-by', state: 'active' }));
  t.like(published, { state: 'active', num_resources: 1 });
  t.is((await show('pw-draft', anonymous)).state, 'active');
  const back = await post('package_patch', { id: 'pw-draft', state: 'draft' });
  t.like(back.body.error, { __type: 'Validation Error', state: ['an active dataset cannot go back to draft'] });
  // A draft's refused resource takes the draft away again.
  const refused = await post('package_create', {
    name: 'pw-draft-bad',
    state: 'draft',
    resources: [{ url: 'https://files.example/ok.csv' }, { url: 'https://files.example/ok.csv' }],
  });
  t.is(refused.status, 409);
  t.is((await app.api.get('/api/v1/packages/pw-draft-bad?state=draft', editorAuth)).status, 404);
});

test('Validation Error names CKAN’s keys (owner_org, license_id, resources by position); a failing inline resource creates nothing', async (t) => {
  const missing = await post('package_create', { name: 'pw-invalid', title: 'x', author_email: 'not an email' });
  t.is(missing.status, 409);
  t.like(missing.body, { success: false, error: { __type: 'Validation Error' } });
  t.deepEqual(Object.keys(missing.body.error).sort(), ['__type', 'author_email', 'license_id', 'message', 'owner_org']);
  t.deepEqual(missing.body.error.owner_org, ['Missing value']);

  const badResource = await post('package_create', {
    ...fullDict('pw-half'),
    resources: [{ url: 'https://files.example/fine.csv' }, { url: 'not a url', name: 'bad' }],
  });
  t.is(badResource.status, 409);
  t.deepEqual(badResource.body.error.resources, [{}, { url: ['must be an http(s) or ftp URL'] }]);
  t.is((await rest('pw-half')).status, 404, 'no half-written dataset');

  const duplicate = await post('package_create', { ...fullDict('pw-full-dup'), name: 'pw-full' });
  t.like(duplicate.body.error, { __type: 'Validation Error', name: ['is already taken'] });
  const unknownOrg = await post('package_create', { ...fullDict('pw-no-org'), owner_org: 'no-such-org' });
  t.like(unknownOrg.body.error, { __type: 'Validation Error', owner_org: ['no active organization has this id or name'] });
  t.is((await ckanGet(app.api, 'package_create', { name: 'pw-get' }, editorAuth)).status, 400, 'a write action refuses a GET');
});

test('a sysadmin’s package_create keeps the dict’s id and its resources’ ids; an editor’s are ignored, as CKAN does', async (t) => {
  const id = '5b0c3f1e-9a8d-4c2b-8f7e-6d5c4b3a2910';
  const resourceId = '0f1e2d3c-4b5a-4968-8776-655443322110';
  const dict = (name: string, ids: { id?: unknown; resource?: unknown }) => ({
    ...fullDict(name),
    id: ids.id,
    resources: [
      { id: ids.resource, url: `https://files.example/${name}.csv`, format: 'CSV' },
      { url: `https://files.example/${name}.json` },
    ],
  });
  const kept = resultOf(await post('package_create', dict('pw-kept-ids', { id: id.toUpperCase(), resource: resourceId }), app.sysadmin));
  t.is(kept.id, id);
  t.is(kept.resources[0].id, resourceId);
  t.is(kept.resources[0].package_id, id);
  t.not(kept.resources[1].id, undefined);
  t.is((await show(id)).name, 'pw-kept-ids');
  t.is(resultOf(await ckanGet(app.api, 'resource_show', { id: resourceId }, editorAuth)).url, 'https://files.example/pw-kept-ids.csv');

  const ignored = resultOf(
    await post('package_create', dict('pw-editor-ids', { id: 'a1b2c3d4-0000-4000-8000-000000000001', resource: 'not even a uuid' })),
  );
  t.not(ignored.id, 'a1b2c3d4-0000-4000-8000-000000000001', 'an editor’s id is not taken');
  t.not(ignored.resources[0].id, 'not even a uuid');

  const takenId = await post('package_create', dict('pw-taken-id', { id }), app.sysadmin);
  t.is(takenId.status, 409);
  t.like(takenId.body.error, { __type: 'Validation Error', id: ['is already taken'] });
  const takenResource = await post('package_create', dict('pw-taken-resource', { resource: resourceId }), app.sysadmin);
  t.is(takenResource.status, 409);
  t.deepEqual(takenResource.body.error.resources, [{ id: ['is already taken'] }]);
  const notUuid = await post('package_create', dict('pw-bad-id', { id: 'dataset-1', resource: 42 }), app.sysadmin);
  t.is(notUuid.status, 409);
  t.like(notUuid.body.error, { id: ['Must be a UUID'] });
  t.deepEqual(notUuid.body.error.resources, [{ id: ['Must be a UUID'] }]);
  for (const name of ['pw-taken-id', 'pw-taken-resource', 'pw-bad-id']) t.is((await rest(name)).status, 404, `${name}: nothing created`);
});

test('authorization: anonymous, a member, an editor of another organization are refused; an editor and a sysadmin write', async (t) => {
  const dict = (name: string) => ({ ...fullDict(name), resources: [] });
  for (const [who, auth] of [
    ['anonymous', anonymous],
    ['member', as(member)],
    ['other editor', as(otherEditor)],
    ['outsider', as(outsider)],
  ] as const) {
    const res = await post('package_create', dict(`pw-by-${who.replace(' ', '-')}`), auth);
    t.is(res.status, 403, `${who}: ${res.text}`);
    t.is(res.body.error.__type, 'Authorization Error');
  }
  t.is(resultOf(await post('package_create', dict('pw-by-sysadmin'), app.sysadmin)).name, 'pw-by-sysadmin');
  const target = resultOf(await post('package_create', dict('pw-target')));
  for (const auth of [as(member), as(otherEditor), anonymous]) {
    for (const [action, params] of [
      ['package_update', { ...target, title: 'Mine' }],
      ['package_patch', { id: target.id, title: 'Mine' }],
      ['package_delete', { id: target.id }],
      ['resource_create', { package_id: target.id, url: 'https://files.example/x.csv' }],
    ] as const) {
      const res = await post(action, params, auth);
      t.is(res.status, 403, `${action}: ${res.text}`);
    }
  }
  t.is((await show('pw-target')).title, 'Title of pw-target');
  t.is(resultOf(await post('package_patch', { id: target.id, title: 'Sysadmin was here' }, app.sysadmin)).title, 'Sysadmin was here');
  // A private dataset is not found by those who may not see it, as package_show answers them.
  const hidden = resultOf(await post('package_create', { ...dict('pw-private'), private: true }));
  const res = await post('package_patch', { id: hidden.id, title: 'x' }, as(otherEditor));
  t.is(res.status, 404);
  t.is(res.body.error.__type, 'Not Found Error');
});

test('package_delete soft-deletes an active dataset and removes a draft; deleting what is not there is Not Found', async (t) => {
  resultOf(await post('package_create', { ...fullDict('pw-delete'), resources: [] }));
  t.is(resultOf(await post('package_delete', { id: 'pw-delete' })), null);
  t.is((await ckanGet(app.api, 'package_show', { id: 'pw-delete' })).status, 404);
  t.is((await rest('pw-delete')).body.state, 'deleted');
  const draft = resultOf(await post('package_create', { name: 'pw-delete-draft', state: 'draft' }));
  t.is(resultOf(await post('package_delete', { id: draft.id })), null);
  await until(
    'the draft is removed',
    async () => (await app.api.get(`/api/v1/packages/${draft.id}?state=draft`, editorAuth)).status === 404,
  );
  const none = await post('package_delete', { id: 'pw-never-was' });
  t.is(none.status, 404);
  t.is(none.body.error.__type, 'Not Found Error');
});

test('resource_patch with another URL, or clear_upload, makes an upload a link to it; its own download URL or a bare file name keeps it an upload', async (t) => {
  const pkg = resultOf(await post('package_create', { ...fullDict('pw-relink'), resources: [] }));
  const upload = async (name: string) => {
    const form = new FormData();
    form.set('package_id', pkg.id);
    form.set('name', name);
    form.set('upload', new Blob(['a,b\n1,2\n'], { type: 'text/csv' }), `${name}.csv`);
    const res = await fetch(`${app.url}${ACTION}/resource_create`, {
      method: 'POST',
      body: form,
      headers: { Authorization: `Bearer ${editor.token}` },
    });
    return (await res.json()).result;
  };
  const first = await upload('first');
  t.like(resultOf(await post('resource_patch', { id: first.id, url: first.url, name: 'same url' })), {
    url_type: 'upload',
    url: first.url,
  });
  t.like(resultOf(await post('resource_patch', { id: first.id, url: 'first.csv' })), { url_type: 'upload', url: first.url });
  const relinked = resultOf(await post('resource_patch', { id: first.id, url: 'https://files.example/moved.csv' }));
  t.like(relinked, { url: 'https://files.example/moved.csv', name: 'same url' });
  t.not(relinked.url_type, 'upload');
  const second = await upload('second');
  const cleared = resultOf(await post('resource_update', { id: second.id, url: 'https://files.example/linked.csv', clear_upload: 'true' }));
  t.like(cleared, { url: 'https://files.example/linked.csv' });
  t.not(cleared.url_type, 'upload');
  t.is((await fetch(second.url, { redirect: 'manual' })).status, 302, 'the download now sends to the link');
});

test('resource_create with a multipart file streams it to storage and runs the pipeline; update, patch, reorder and delete', async (t) => {
  const pkg = resultOf(
    await post('package_create', { ...fullDict('pw-files'), resources: [{ url: 'https://files.example/first.csv', name: 'First' }] }),
  );
  const form = new FormData();
  form.set('package_id', pkg.id);
  form.set('name', 'Uploaded');
  form.set('format', 'CSV');
  form.set('upload', new Blob(['city,count\nOslo,3\nBergen,5\n'], { type: 'text/csv' }), 'cities.csv');
  const res = await fetch(`${app.url}${ACTION}/resource_create`, {
    method: 'POST',
    body: form,
    headers: { Authorization: `Bearer ${editor.token}` },
  });
  const body = await res.json();
  t.is(res.status, 200, JSON.stringify(body));
  const uploaded = body.result;
  t.like(uploaded, { name: 'Uploaded', url_type: 'upload', size: 27, position: 1, package_id: pkg.id });
  t.regex(uploaded.url, /\/api\/v1\/resources\/.+\/download$/);
  const download = await fetch(uploaded.url);
  t.is(await download.text(), 'city,count\nOslo,3\nBergen,5\n');
  await until(
    'the pipeline makes it queryable',
    async () => resultOf(await ckanGet(app.api, 'resource_show', { id: uploaded.id })).datastore_active === true,
  );

  const patched = resultOf(await post('resource_patch', { id: uploaded.id, description: 'Cities' }));
  t.like(patched, { description: 'Cities', name: 'Uploaded', url_type: 'upload', size: 27 });
  const replaced = resultOf(await post('resource_update', { id: pkg.resources[0].id, url: 'https://files.example/other.csv' }));
  t.like(replaced, { url: 'https://files.example/other.csv', name: null });
  const reordered = resultOf(await post('package_resource_reorder', { id: 'pw-files', order: [uploaded.id] }));
  t.deepEqual(reordered, { id: 'pw-files', order: [uploaded.id, pkg.resources[0].id] });
  t.deepEqual(
    (await show('pw-files')).resources.map((r: { id: string }) => r.id),
    [uploaded.id, pkg.resources[0].id],
  );
  t.is((await post('package_resource_reorder', { id: 'pw-files', order: ['nope'] })).status, 409);
  t.is(resultOf(await post('resource_delete', { id: uploaded.id })), null);
  t.is((await fetch(uploaded.url)).status, 404);
  t.is((await post('resource_delete', { id: uploaded.id })).status, 404);
  t.is((await post('resource_create', { package_id: 'pw-files', url: 'https://files.example/x.csv' }, as(member))).status, 403);
  const invalid = await post('resource_create', { package_id: 'pw-files', url: 'not a url' });
  t.like(invalid.body.error, { __type: 'Validation Error' });
  t.truthy(invalid.body.error.url);
});

test('a harvested dataset is refused as REST refuses it (409, a Validation Error to CKAN clients)', async (t) => {
  const source = await makeSource(app, { name: 'pw-source', organization: 'pw-org' });
  await applyHarvestPage(domainContext(app), source, await makeRun(app, source), [
    { kind: 'record', record: harvestRecord('pw-harvested') },
  ]);
  const dict = await show('pw-harvested', app.sysadmin);
  for (const [action, params] of [
    ['package_update', { ...dict, title: 'Hand edit' }],
    ['package_patch', { id: dict.id, title: 'Hand edit' }],
    ['resource_create', { package_id: dict.id, url: 'https://files.example/mine.csv' }],
    ['resource_patch', { id: dict.resources[0].id, name: 'Mine' }],
    ['resource_delete', { id: dict.resources[0].id }],
  ] as const) {
    const res = await post(action, params, app.sysadmin);
    t.is(res.status, 409, action);
    t.is(res.body.error.__type, 'Validation Error');
    t.regex(res.body.error.message, /managed by harvest source pw-source/);
  }
  t.is((await show('pw-harvested')).title, 'Title of pw-harvested');
});

test('with an organization profile: its fields are profile values, other top-level keys extras; a bad value names its key', async (t) => {
  await groupWithMembers(t, app, ORGANIZATIONS, { name: 'pw-profiled' }, {});
  const put = await app.api.put('/api/v1/admin/profiles/organizations/pw-profiled', PROFILE, app.sysadmin);
  t.is(put.status, 201, put.text);
  const dict = {
    name: 'pw-profiled-1',
    title: 'Profiled',
    owner_org: 'pw-profiled',
    license_id: 'cc-by',
    extras: [{ key: 'first', value: '1' }],
    ...CUSTOM_FIELDS,
    not_in_profile: { any: 'json' },
    resources: [{ url: 'https://files.example/p.csv', granularity: 'daily', station_code: 'HB-07' }],
  };
  const created = resultOf(await post('package_create', dict, app.sysadmin));
  t.like(created, CUSTOM_FIELDS);
  t.deepEqual(created.extras, [
    { key: 'first', value: '1' },
    { key: 'not_in_profile', value: '{"any":"json"}' },
  ]);
  t.like(created.resources[0], { granularity: 'daily', station_code: 'HB-07' });
  const { body } = await rest('pw-profiled-1');
  t.deepEqual(body.customFields, CUSTOM_FIELDS);
  t.deepEqual(body.resources[0].customFields, { granularity: 'daily' });
  t.deepEqual(body.resources[0].customExtras, [{ key: 'station_code', value: 'HB-07' }]);
  const again = resultOf(await post('package_update', created, app.sysadmin));
  const { metadata_modified: _a, ...before } = created;
  const { metadata_modified: _b, ...after } = again;
  t.deepEqual(after, before, 'round-trips with its profile values');
  const bad = await post('package_patch', { id: created.id, region: 'west' }, app.sysadmin);
  t.is(bad.status, 409);
  t.truthy(bad.body.error.region, bad.text);
  const badResource = await post('resource_patch', { id: created.resources[0].id, granularity: 'hourly' }, app.sysadmin);
  t.is(badResource.status, 409);
  t.truthy(badResource.body.error.granularity, badResource.text);
});
