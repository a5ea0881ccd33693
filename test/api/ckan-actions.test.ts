import test from 'ava';
import { startTestAppWithPeople, type People, type TestApp } from '../helpers/app.ts';
import { as, type Auth } from '../helpers/client.ts';
import { ACTION, ckanGet, ckanPost, resultOf } from '../helpers/ckan.ts';
import { CATEGORIES, createGroup, groupWithMembers, ORGANIZATIONS } from '../helpers/groups.ts';
import { uploadAndProcess } from '../helpers/pipeline.ts';
import { UUID } from '../helpers/formats.ts';

/** The CKAN-compatible Action API (issue 17 §1): envelopes, every action, errors in CKAN's shapes. */

let app: TestApp;
let people: People<'member'>;
let admin: Auth;
let uploadId: string;
let linkId: string;

/** CKAN's metadata timestamps: naive UTC, microseconds, no zone. */
const CKAN_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;

test.before(async (t) => {
  ({ app, people } = await startTestAppWithPeople('ckact', ['member']));
  admin = { token: app.adminToken };
  await groupWithMembers(t, app, ORGANIZATIONS, { name: 'ck-org', title: 'CK Org', description: 'An org' }, { member: people.member });
  await createGroup(t, app, CATEGORIES, { name: 'ck-cat', title: 'CK Cat' });
  const created = await app.api.post(
    '/api/v1/packages',
    {
      name: 'ck-full',
      title: 'Full dataset',
      notes: 'All the fields',
      ownerOrg: 'ck-org',
      licenseId: 'cc-by',
      tags: ['zeta', 'alpha'],
      groups: ['ck-cat'],
      author: 'Ann',
      version: '1.0',
      resources: [
        { urlType: 'upload', name: 'table.csv', format: 'CSV' },
        { urlType: 'link', url: 'https://example.org/ck-full.json', name: 'link', format: 'JSON' },
      ],
    },
    admin,
  );
  t.is(created.status, 201, created.text);
  [uploadId, linkId] = created.body.resources.map((r: { id: string }) => r.id);
  await uploadAndProcess(app.api, uploadId, 'n,word\n1,one\n2,two\n3,three\n', admin);
  t.is((await app.api.post('/api/v1/packages', { name: 'ck-bare', ownerOrg: 'ck-org', licenseId: 'made-up-license' }, admin)).status, 201);
  t.is(
    (await app.api.post('/api/v1/packages', { name: 'ck-secret', ownerOrg: 'ck-org', licenseId: 'cc-by', private: true }, admin)).status,
    201,
  );
});
test.after.always(async () => app?.stop());

test('a success is CKAN’s envelope {help, success: true, result} as application/json exactly, on both prefixes', async (t) => {
  for (const path of [`${ACTION}/site_read`, '/api/action/site_read']) {
    const reply = await app.api.get(path);
    t.is(reply.status, 200);
    t.is(reply.headers.get('content-type'), 'application/json');
    t.deepEqual(reply.body, { help: `${app.url}/api/3/action/help_show?name=site_read`, success: true, result: true });
  }
});

test.serial('every action answers GET and POST alike, and a POST is never redirected', async (t) => {
  const calls: Array<[string, Record<string, string>]> = [
    ['package_search', { q: 'name:ck-full' }],
    ['package_show', { id: 'ck-full' }],
    ['package_list', {}],
    ['organization_list', {}],
    ['organization_show', { id: 'ck-org' }],
    ['group_list', {}],
    ['group_show', { id: 'ck-cat' }],
    ['tag_list', {}],
    ['resource_show', { id: linkId }],
    ['status_show', {}],
    ['help_show', { name: 'package_search' }],
    ['site_read', {}],
    ['license_list', {}],
    ['datastore_search', { resource_id: uploadId }],
  ];
  for (const [action, params] of calls) {
    const get = await ckanGet(app.api, action, params);
    const post = await ckanPost(app.api, action, params);
    t.is(get.status, 200, `GET ${action}: ${get.text}`);
    t.is(post.status, 200, `POST ${action}: ${post.text}`);
    t.is(post.headers.get('location'), null);
    t.deepEqual(post.body.result, get.body.result, action);
    const viaShortPath = await app.api.post(`/api/action/${action}`, params);
    t.is(viaShortPath.status, 200, `POST /api/action/${action}`);
  }
});

test('package_show gives the package dict as CKAN emits it, every key present', async (t) => {
  const pkg = resultOf(await ckanGet(app.api, 'package_show', { id: 'ck-full' }));
  t.deepEqual(Object.keys(pkg).sort(), [
    'author',
    'author_email',
    'creator_user_id',
    'extras',
    'groups',
    'id',
    'isopen',
    'license_id',
    'license_title',
    'license_url',
    'maintainer',
    'maintainer_email',
    'metadata_created',
    'metadata_modified',
    'name',
    'notes',
    'num_resources',
    'num_tags',
    'organization',
    'owner_org',
    'private',
    'relationships_as_object',
    'relationships_as_subject',
    'resources',
    'state',
    'tags',
    'title',
    'type',
    'url',
    'version',
  ]);
  t.like(pkg, {
    name: 'ck-full',
    title: 'Full dataset',
    notes: 'All the fields',
    author: 'Ann',
    author_email: null,
    maintainer: null,
    url: null,
    version: '1.0',
    type: 'dataset',
    state: 'active',
    private: false,
    license_id: 'cc-by',
    license_title: 'Creative Commons Attribution',
    license_url: 'http://www.opendefinition.org/licenses/cc-by',
    isopen: true,
    num_resources: 2,
    num_tags: 2,
    extras: [],
  });
  t.regex(pkg.id, UUID);
  t.regex(pkg.metadata_created, CKAN_TIME);
  t.regex(pkg.metadata_modified, CKAN_TIME);
  t.is(pkg.owner_org, pkg.organization.id);
  t.like(pkg.organization, {
    name: 'ck-org',
    title: 'CK Org',
    type: 'organization',
    description: 'An org',
    is_organization: true,
    approval_status: 'approved',
    state: 'active',
  });
  t.regex(pkg.organization.created, CKAN_TIME);
  t.deepEqual(
    pkg.tags.map((tag: { name: string }) => tag.name),
    ['alpha', 'zeta'],
  );
  t.like(pkg.tags[0], { name: 'alpha', display_name: 'alpha', state: 'active', vocabulary_id: null });
  t.like(pkg.groups[0], { name: 'ck-cat', title: 'CK Cat', display_name: 'CK Cat' });
  t.deepEqual(Object.keys(pkg.groups[0]).sort(), ['description', 'display_name', 'id', 'image_display_url', 'name', 'title']);
  const [upload, link] = pkg.resources;
  for (const key of [
    'id',
    'package_id',
    'url',
    'name',
    'description',
    'format',
    'mimetype',
    'size',
    'hash',
    'position',
    'resource_type',
    'url_type',
    'created',
    'last_modified',
    'metadata_modified',
    'state',
    'datastore_active',
  ]) {
    t.true(key in upload, `resource key ${key}`);
  }
  t.like(upload, {
    id: uploadId,
    package_id: pkg.id,
    position: 0,
    url_type: 'upload',
    format: 'CSV',
    state: 'active',
    datastore_active: true,
  });
  t.true(upload.size > 0);
  t.regex(upload.last_modified, CKAN_TIME);
  t.like(link, {
    id: linkId,
    position: 1,
    url_type: null,
    url: 'https://example.org/ck-full.json',
    datastore_active: false,
    last_modified: null,
  });
});

test('a license outside the table keeps its id as title, with no URL, and is not open', async (t) => {
  const pkg = resultOf(await ckanGet(app.api, 'package_show', { id: 'ck-bare' }));
  t.like(pkg, {
    license_id: 'made-up-license',
    license_title: 'made-up-license',
    license_url: null,
    isopen: false,
    notes: null,
    title: null,
  });
  t.deepEqual(pkg.resources, []);
  t.deepEqual(pkg.groups, []);
});

test('license_list gives the license table with titles, URLs and openness', async (t) => {
  const list = resultOf(await ckanGet(app.api, 'license_list'));
  const ccBy = list.find((l: { id: string }) => l.id === 'cc-by');
  t.like(ccBy, { title: 'Creative Commons Attribution', url: 'http://www.opendefinition.org/licenses/cc-by', od_conformance: 'approved' });
  t.like(
    list.find((l: { id: string }) => l.id === 'other-closed'),
    { od_conformance: 'not reviewed', is_okd_compliant: false },
  );
});

test('organization_list, group_list and tag_list give names; all_fields gives dicts with package_count', async (t) => {
  t.deepEqual(resultOf(await ckanGet(app.api, 'organization_list')), ['ck-org']);
  t.deepEqual(resultOf(await ckanGet(app.api, 'group_list')), ['ck-cat']);
  t.deepEqual(resultOf(await ckanGet(app.api, 'tag_list')), ['alpha', 'zeta']);
  const [org] = resultOf(await ckanGet(app.api, 'organization_list', { all_fields: 'true' }));
  t.like(org, { name: 'ck-org', title: 'CK Org', type: 'organization', is_organization: true, package_count: 2 });
  const [cat] = resultOf(await ckanPost(app.api, 'group_list', { all_fields: true }));
  t.like(cat, { name: 'ck-cat', type: 'group', is_organization: false, package_count: 1 });
  t.like(resultOf(await ckanGet(app.api, 'tag_list', { all_fields: 'true' }))[0], { name: 'alpha', vocabulary_id: null });
  t.deepEqual(resultOf(await ckanGet(app.api, 'tag_list', { query: 'zet' })), ['zeta']);
});

test('organization_show and group_show give package_count, and their datasets with include_datasets', async (t) => {
  const org = resultOf(await ckanGet(app.api, 'organization_show', { id: 'ck-org' }));
  t.like(org, { name: 'ck-org', package_count: 2, is_organization: true });
  t.false('packages' in org);
  const withDatasets = resultOf(await ckanGet(app.api, 'organization_show', { id: 'ck-org', include_datasets: 'true' }));
  t.deepEqual(
    withDatasets.packages.map((p: { name: string }) => p.name),
    ['ck-bare', 'ck-full'],
  );
  const cat = resultOf(await ckanPost(app.api, 'group_show', { id: 'ck-cat', include_datasets: true }));
  t.like(cat, { name: 'ck-cat', package_count: 1 });
  t.deepEqual(
    cat.packages.map((p: { name: string }) => p.name),
    ['ck-full'],
  );
});

test('package_list lists public active dataset names by name, with limit and offset', async (t) => {
  t.deepEqual(resultOf(await ckanGet(app.api, 'package_list')), ['ck-bare', 'ck-full']);
  t.deepEqual(resultOf(await ckanGet(app.api, 'package_list', { limit: 1, offset: 1 })), ['ck-full']);
  t.deepEqual(resultOf(await ckanGet(app.api, 'package_list', {}, admin)), ['ck-bare', 'ck-full'], 'private ones not even for a sysadmin');
});

test('resource_show gives the resource dict', async (t) => {
  const res = resultOf(await ckanGet(app.api, 'resource_show', { id: uploadId }));
  t.like(res, { id: uploadId, name: 'table.csv', url_type: 'upload', datastore_active: true, state: 'active' });
});

test.serial('datastore_search pages the typed preview: fields, records, total, limit/offset, _links', async (t) => {
  const page = resultOf(await ckanGet(app.api, 'datastore_search', { resource_id: uploadId, limit: 2 }));
  t.deepEqual(page.fields, [
    { id: '_id', type: 'int' },
    { id: 'n', type: 'int8' },
    { id: 'word', type: 'text' },
  ]);
  t.deepEqual(page.records, [
    { _id: 1, n: 1, word: 'one' },
    { _id: 2, n: 2, word: 'two' },
  ]);
  t.like(page, { resource_id: uploadId, total: 3, limit: 2, offset: 0 });
  t.is(page._links.start, `/api/3/action/datastore_search?resource_id=${uploadId}&limit=2`);
  t.is(page._links.next, `/api/3/action/datastore_search?resource_id=${uploadId}&limit=2&offset=2&cursor=2%3A2`);
  const next = resultOf(await ckanPost(app.api, 'datastore_search', { resource_id: uploadId, limit: 2, offset: 2, fields: ['word'] }));
  // As CKAN: with `fields`, only those (`_id` too only when named).
  t.deepEqual(next.records, [{ word: 'three' }]);
  t.deepEqual(next.fields, [{ id: 'word', type: 'text' }]);
});

test('status_show and help_show describe the site and the actions', async (t) => {
  const status = resultOf(await ckanGet(app.api, 'status_show'));
  t.like(status, { ckan_version: '2.10.0', locale_default: 'en' });
  t.true(status.extensions.includes('datastore'));
  t.regex(resultOf(await ckanGet(app.api, 'help_show', { name: 'package_show' })), /dataset/);
});

// ---- errors ----

const isCkanError = (
  t: import('ava').ExecutionContext,
  reply: { status: number; body: any; headers: Headers },
  status: number,
  type: string,
) => {
  t.is(reply.status, status, JSON.stringify(reply.body));
  t.is(reply.headers.get('content-type'), 'application/json');
  t.is(reply.body?.success, false);
  t.is(reply.body?.error?.__type, type);
  t.regex(reply.body?.help ?? '', /\/api\/3\/action\/help_show\?name=/);
};

test('an unknown action is 400 Bad Request', async (t) => {
  isCkanError(t, await ckanGet(app.api, 'package_destroy_everything'), 400, 'Bad Request');
  const post = await ckanPost(app.api, 'nope');
  isCkanError(t, post, 400, 'Bad Request');
  t.regex(post.body.error.message, /Action name not known: nope/);
});

test('a dataset, resource, organization, group or action that is not there is 404 Not Found Error', async (t) => {
  isCkanError(t, await ckanGet(app.api, 'package_show', { id: 'no-such-dataset' }), 404, 'Not Found Error');
  isCkanError(t, await ckanGet(app.api, 'resource_show', { id: '00000000-0000-4000-8000-000000000000' }), 404, 'Not Found Error');
  isCkanError(t, await ckanGet(app.api, 'organization_show', { id: 'no-org' }), 404, 'Not Found Error');
  isCkanError(t, await ckanGet(app.api, 'group_show', { id: 'no-cat' }), 404, 'Not Found Error');
  isCkanError(t, await ckanGet(app.api, 'help_show', { name: 'no_action' }), 404, 'Not Found Error');
  const reply = await ckanGet(app.api, 'package_show', { id: 'no-such-dataset' });
  t.regex(reply.body.error.message, /^Not found/);
});

test('datastore_search of a resource without a preview is 404 Not Found Error', async (t) => {
  isCkanError(t, await ckanGet(app.api, 'datastore_search', { resource_id: linkId }), 404, 'Not Found Error');
});

test('a missing or invalid parameter is 409 Validation Error naming the field', async (t) => {
  const missing = await ckanGet(app.api, 'package_show');
  isCkanError(t, missing, 409, 'Validation Error');
  t.deepEqual(missing.body.error.id, ['Missing value']);
  const badRows = await ckanGet(app.api, 'package_search', { rows: 'ten' });
  isCkanError(t, badRows, 409, 'Validation Error');
  t.deepEqual(Object.keys(badRows.body.error).sort(), ['__type', 'message', 'rows']);
  isCkanError(t, await ckanGet(app.api, 'package_search', { start: -1 }), 409, 'Validation Error');
  isCkanError(t, await ckanGet(app.api, 'datastore_search', { resource_id: uploadId, fields: 'nope' }), 409, 'Validation Error');
  isCkanError(t, await ckanGet(app.api, 'datastore_search', { resource_id: uploadId, filters: '{"nope":1}' }), 409, 'Validation Error');
});

test('a bad token is 403 Authorization Error in CKAN’s envelope, whichever header carries it; REST keeps its 401 problem', async (t) => {
  isCkanError(t, await ckanGet(app.api, 'site_read', {}, { token: 'alm_wrong' }), 403, 'Authorization Error');
  isCkanError(t, await ckanGet(app.api, 'site_read', {}, { headers: { Authorization: 'alm_wrong' } }), 403, 'Authorization Error');
  isCkanError(t, await ckanGet(app.api, 'site_read', {}, { headers: { 'X-CKAN-API-Key': 'alm_wrong' } }), 403, 'Authorization Error');
  const rest = await app.api.get('/api/v1/packages', { headers: { Authorization: people.member.token } });
  t.is(rest.status, 401, 'the bare token is a CKAN form only');
  t.is(rest.headers.get('content-type'), 'application/problem+json');
});

test('the token is accepted as Bearer, bare in Authorization, and in X-CKAN-API-Key', async (t) => {
  const token = people.member.token;
  for (const auth of [as(people.member), { headers: { Authorization: token } }, { headers: { 'X-CKAN-API-Key': token } }]) {
    const reply = await ckanGet(app.api, 'package_show', { id: 'ck-secret' }, auth);
    t.is(reply.status, 200, JSON.stringify(auth.headers ?? 'bearer'));
  }
  isCkanError(t, await ckanGet(app.api, 'package_show', { id: 'ck-secret' }), 404, 'Not Found Error');
});

test('malformed JSON in a POST body is 400 Bad Request in CKAN’s envelope', async (t) => {
  const reply = await app.api.post(`${ACTION}/package_search`, '{"q": ', { headers: { 'Content-Type': 'application/json' } });
  isCkanError(t, reply, 400, 'Bad Request');
  const list = await app.api.post(`${ACTION}/package_search`, '[1, 2]', { headers: { 'Content-Type': 'application/json' } });
  isCkanError(t, list, 400, 'Bad Request');
});

test('a POST with a form body or JSON sent as text is read too', async (t) => {
  const form = await app.api.post(`${ACTION}/package_show`, 'id=ck-full', {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  t.is(resultOf(form).name, 'ck-full');
  const text = await app.api.post(`${ACTION}/package_show`, '{"id": "ck-full"}', { headers: { 'Content-Type': 'text/plain' } });
  t.is(resultOf(text).name, 'ck-full');
});

test.serial('integers past what the databases count are a 409 Validation Error, not a 500; list limits are capped', async (t) => {
  const huge = '99999999999999999999';
  for (const [action, params] of [
    ['package_search', { start: huge }],
    ['package_list', { limit: huge }],
    ['package_list', { offset: huge }],
    ['package_list', { offset: '1000000001' }],
    ['organization_list', { limit: huge }],
    ['group_list', { offset: huge }],
    ['datastore_search', { resource_id: uploadId, offset: '99999999999' }],
    ['datastore_search', { resource_id: uploadId, limit: huge }],
  ] as const) {
    const reply = await ckanGet(app.api, action, params);
    isCkanError(t, reply, 409, 'Validation Error');
    t.is(Object.keys(reply.body.error).length, 3, `${action} ${JSON.stringify(params)}: one field named`);
  }
  t.deepEqual(resultOf(await ckanGet(app.api, 'package_list', { limit: '99999999999', offset: '1000000000' })), []);
  t.deepEqual(resultOf(await ckanGet(app.api, 'organization_list', { limit: '99999999999' })), ['ck-org']);
  const far = resultOf(await ckanGet(app.api, 'datastore_search', { resource_id: uploadId, offset: '1000000000' }));
  t.deepEqual(far.records, []);
});

test('a single-valued parameter given twice is a 409 Validation Error naming it, never one of them dropped', async (t) => {
  const reply = await ckanGet(app.api, 'package_show', { id: ['ck-full', 'ck-bare'] });
  isCkanError(t, reply, 409, 'Validation Error');
  t.truthy(reply.body.error.id);
  isCkanError(t, await ckanGet(app.api, 'organization_list', { all_fields: ['true', 'false'] }), 409, 'Validation Error');
});

test.serial('datastore_search lists a field named twice once', async (t) => {
  const page = resultOf(
    await ckanPost(app.api, 'datastore_search', { resource_id: uploadId, limit: 1, fields: ['word', 'word', 'n', 'word'] }),
  );
  t.deepEqual(
    page.fields.map((f: { id: string }) => f.id),
    ['word', 'n'],
  );
  t.deepEqual(page.records, [{ word: 'one', n: 1 }]);
  const get = resultOf(await ckanGet(app.api, 'datastore_search', { resource_id: uploadId, limit: 1, fields: 'n,n' }));
  t.deepEqual(
    get.fields.map((f: { id: string }) => f.id),
    ['n'],
  );
});

test('a form or text body is held to the JSON body’s size and depth limits', async (t) => {
  const deep = `{"id": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
  const reply = await app.api.post(`${ACTION}/package_show`, deep, { headers: { 'Content-Type': 'text/plain' } });
  isCkanError(t, reply, 400, 'Bad Request');
  t.regex(reply.body.error.message, /nested/);
  const big = await app.api.post(`${ACTION}/package_show`, `id=ck-full&pad=${'x'.repeat(2 << 20)}`, {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  t.is(big.status, 413, big.text);
  t.is(big.body.success, false);
});
