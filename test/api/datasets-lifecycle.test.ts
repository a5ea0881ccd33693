import test, { type ExecutionContext } from 'ava';
import { fieldPaths, isProblem } from '../helpers/problem.ts';
import { startTestAppWithPeople, type People, type TestApp } from '../helpers/app.ts';
import { anonymous, as, type Auth, type TestUser } from '../helpers/client.ts';
import { ISO, UUID } from '../helpers/formats.ts';
import { ORGANIZATIONS, groupWithMembers } from '../helpers/groups.ts';
import { unique } from '../helpers/names.ts';

/**
 * The dataset lifecycle of spec §3, row by row, and resources as metadata, over HTTP. Listing, search,
 * purge and uploads are covered elsewhere.
 */

let app: TestApp;
/**
 * Users shared by the tests: each test gives them roles only in organizations and categories it creates
 * itself.
 */
let people: People<'admin' | 'editor' | 'member' | 'outsider' | 'creator'>;
test.before(async () => {
  ({ app, people } = await startTestAppWithPeople('ds', ['admin', 'editor', 'member', 'outsider', 'creator']));
});
test.after.always(async () => app?.stop());

const PKG = '/api/v1/packages';
const PLACEHOLDER = /^untitled-[a-z0-9]{8}$/;

/** An organization with the shared admin, editor and member in their roles. */
const orgWithRoles = (t: ExecutionContext, prefix = 'org') => groupWithMembers(t, app, ORGANIZATIONS, { name: unique(prefix) }, people);

async function setOrgRole(t: ExecutionContext, org: string, user: TestUser, role: 'admin' | 'editor' | 'member') {
  const res = await app.api.post(`/api/v1/organizations/${org}/members`, { user: user.id, role }, app.sysadmin);
  t.true(res.status === 200 || res.status === 201, res.text);
}

/** An active dataset created by the org editor. */
async function createActive(t: ExecutionContext, org: { name: string }, fields: Record<string, unknown> = {}) {
  const res = await app.api.post(PKG, { name: unique('ds'), ownerOrg: org.name, licenseId: 'cc-by-4.0', ...fields }, as(people.editor));
  t.is(res.status, 201, res.text);
  return res.body;
}

async function createDraft(t: ExecutionContext, user: TestUser, fields: Record<string, unknown> = {}) {
  const res = await app.api.post(`${PKG}/drafts`, fields, as(user));
  t.is(res.status, 201, res.text);
  return res.body;
}

/** Whether a tag row exists at all: GET /tags only shows tags of datasets the caller may see. */
async function tagExists(name: string) {
  const rows = await app.almanac.services.orm.em
    .fork()
    .getConnection()
    .execute<{ n: string }[]>('select count(*) as n from tags where name = ?', [name]);
  return Number(rows[0]!.n) > 0;
}

const link = (n: number | string, extra: Record<string, unknown> = {}) => ({
  name: `Resource ${n}`,
  url: `https://example.org/files/${n}.csv`,
  format: 'csv',
  ...extra,
});

// --- POST /packages: (none) → active -------------------------------------------------------------

test('POST /packages by an org editor creates an active dataset with its resources, tags and categories', async (t) => {
  const org = await orgWithRoles(t);
  const category = await app.api.post('/api/v1/groups', { name: unique('cat') }, app.sysadmin);
  await app.api.post(`/api/v1/groups/${category.body.name}/members`, { user: people.editor.id, role: 'member' }, app.sysadmin);
  const newTag = unique('fresh-tag');
  t.false(await tagExists(newTag));

  /** The fields the dataset keeps as they were sent. */
  const kept = {
    name: unique('full'),
    title: 'Air quality',
    notes: 'Hourly **readings**.',
    licenseId: 'cc-by-4.0',
    private: false,
    author: 'A. Author',
    authorEmail: 'author@example.org',
    maintainer: 'M. Aintainer',
    maintainerEmail: 'maintainer@example.org',
    version: '1.0',
    url: 'https://example.org/air',
  };
  const { name } = kept;
  const body = {
    ...kept,
    ownerOrg: org.name,
    tags: [newTag, 'air'],
    groups: [category.body.name],
    resources: [link(1), { name: 'Planned upload', urlType: 'upload', format: 'tsv' }, link(3, { format: null })],
  };
  const before = Date.now();
  const res = await app.api.post(PKG, body, as(people.editor));
  t.is(res.status, 201, res.text);
  const ds = res.body;
  t.regex(ds.id, UUID);
  t.like(ds, {
    ...kept,
    ownerOrg: org.id,
    organization: { id: org.id, name: org.name, title: org.title },
    state: 'active',
    creatorUserId: people.editor.id,
  });
  t.deepEqual(ds.tags, ['air', newTag].sort());
  t.deepEqual(ds.groups, [{ id: category.body.id, name: category.body.name, title: category.body.title }]);
  t.regex(ds.publishedAt, ISO);
  t.true(Date.parse(ds.publishedAt) >= before - 1000);
  t.regex(ds.createdAt, ISO);
  t.false('deletionIncomplete' in ds, 'only drafts carry deletionIncomplete');

  t.is(ds.resources.length, 3);
  t.deepEqual(
    ds.resources.map((r: { position: number }) => r.position),
    [0, 1, 2],
  );
  t.like(ds.resources[0], {
    packageId: ds.id,
    name: 'Resource 1',
    url: 'https://example.org/files/1.csv',
    urlType: 'link',
    format: 'CSV',
    extras: {},
  });
  t.like(ds.resources[1], {
    packageId: ds.id,
    name: 'Planned upload',
    url: null,
    urlType: 'upload',
    format: 'TSV',
    size: null,
    hash: null,
  });
  t.like(ds.resources[2], { format: null });
  for (const r of ds.resources) t.regex(r.id, UUID);

  // The tag now exists; the detail (public, by name and by id) is the same record.
  t.true(await tagExists(newTag));
  const byName = await app.api.get(`${PKG}/${name}`);
  t.is(byName.status, 200);
  t.deepEqual(byName.body, ds);
  t.deepEqual((await app.api.get(`${PKG}/${ds.id}`)).body, ds);
});

test('POST /packages: anonymous 401; a plain user or an org member 403, and nothing is created', async (t) => {
  const org = await orgWithRoles(t);
  const body = { name: unique('refused'), ownerOrg: org.name, licenseId: 'cc-by-4.0' };
  isProblem(t, await app.api.post(PKG, body, anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.post(PKG, body, as(people.outsider)), 403, 'forbidden');
  isProblem(t, await app.api.post(PKG, body, as(people.member)), 403, 'forbidden');
  isProblem(t, await app.api.get(`${PKG}/${body.name}`, app.sysadmin), 404, 'not_found');
  // An org admin and the sysadmin may.
  t.is((await app.api.post(PKG, { ...body, name: unique('by-admin') }, as(people.admin))).status, 201);
  t.is((await app.api.post(PKG, { ...body, name: unique('by-sysadmin') }, app.sysadmin)).status, 201);
});

test('POST /packages without name, ownerOrg and licenseId is 422 naming each', async (t) => {
  const res = await app.api.post(PKG, { title: 'Nothing required' }, as(people.editor));
  isProblem(t, res, 422, 'validation_failed');
  t.deepEqual(fieldPaths(res), ['licenseId', 'name', 'ownerOrg']);
});

test('POST /packages with one bad resource is 422 naming resources.N.field, and nothing is created', async (t) => {
  const org = await orgWithRoles(t);
  const tag = unique('never-tag');
  const name = unique('bad-res');
  const base = { name, ownerOrg: org.name, licenseId: 'cc-by-4.0', tags: [tag] };

  const noUrl = await app.api.post(PKG, { ...base, resources: [link(1), { name: 'no url', urlType: 'link' }] }, as(people.editor));
  isProblem(t, noUrl, 422, 'validation_failed');
  t.deepEqual(fieldPaths(noUrl), ['resources.1.url']);

  const extras = await app.api.post(
    PKG,
    { ...base, resources: [link(1), link(2), { ...link(3), extras: { queryable: true } }] },
    as(people.editor),
  );
  isProblem(t, extras, 422, 'validation_failed');
  t.deepEqual(fieldPaths(extras), ['resources.2.extras']);

  const uploadWithUrl = await app.api.post(PKG, { ...base, resources: [{ ...link(1), urlType: 'upload' }] }, as(people.editor));
  isProblem(t, uploadWithUrl, 422, 'validation_failed');
  t.deepEqual(fieldPaths(uploadWithUrl), ['resources.0.url']);

  isProblem(t, await app.api.get(`${PKG}/${name}`, app.sysadmin), 404, 'not_found');
  t.false(await tagExists(tag));
  // The name is still free.
  const created = await app.api.post(PKG, { ...base, resources: [link(1)] }, as(people.editor));
  t.is(created.status, 201, created.text);
});

test('POST /packages with the same resource URL twice is 409, and nothing is created', async (t) => {
  const org = await orgWithRoles(t);
  const name = unique('dup-urls');
  const res = await app.api.post(
    PKG,
    { name, ownerOrg: org.name, licenseId: 'mit', resources: [link(1), link(2), link(1, { name: 'again' })] },
    as(people.editor),
  );
  isProblem(t, res, 409, 'conflict');
  isProblem(t, await app.api.get(`${PKG}/${name}`, app.sysadmin), 404, 'not_found');
  t.is((await app.api.post(PKG, { name, ownerOrg: org.name, licenseId: 'mit' }, as(people.editor))).status, 201);
});

test('POST /packages with a taken name is 409 on name and leaves no new tag behind', async (t) => {
  const org = await orgWithRoles(t);
  const first = await createActive(t, org);
  const tag = unique('orphan-tag');
  const res = await app.api.post(PKG, { name: first.name, ownerOrg: org.name, licenseId: 'mit', tags: [tag] }, as(people.editor));
  isProblem(t, res, 409, 'conflict');
  t.deepEqual(fieldPaths(res), ['name']);
  t.false(await tagExists(tag), 'the failed request created no tag');

  // A draft's name is taken too (names are unique across states).
  const draft = await createDraft(t, people.creator, { name: unique('drafted') });
  const clash = await app.api.post(PKG, { name: draft.name, ownerOrg: org.name, licenseId: 'mit' }, as(people.editor));
  isProblem(t, clash, 409, 'conflict');
  t.deepEqual(fieldPaths(clash), ['name']);
});

test('POST /packages with an unknown ownerOrg is 422 on ownerOrg', async (t) => {
  for (const ownerOrg of [unique('no-such-org'), '00000000-0000-4000-8000-000000000000']) {
    const res = await app.api.post(PKG, { name: unique('orphan'), ownerOrg, licenseId: 'mit' }, as(people.editor));
    isProblem(t, res, 422, 'validation_failed');
    t.deepEqual(fieldPaths(res), ['ownerOrg']);
  }
  // A deleted organization is unknown too.
  const gone = await orgWithRoles(t, 'gone-org');
  t.is((await app.api.delete(`/api/v1/organizations/${gone.name}`, app.sysadmin)).status, 204);
  const res = await app.api.post(PKG, { name: unique('orphan'), ownerOrg: gone.name, licenseId: 'mit' }, app.sysadmin);
  isProblem(t, res, 422, 'validation_failed');
  t.deepEqual(fieldPaths(res), ['ownerOrg']);
});

test('POST /packages into a category needs membership of it (403); the sysadmin may; an unknown one is 422', async (t) => {
  const org = await orgWithRoles(t);
  const category = await app.api.post('/api/v1/groups', { name: unique('closed-cat') }, app.sysadmin);
  const name = unique('in-cat');
  const tag = unique('refused-tag');
  const refused = await app.api.post(
    PKG,
    { name, ownerOrg: org.name, licenseId: 'mit', tags: [tag], groups: [category.body.name] },
    as(people.editor),
  );
  isProblem(t, refused, 403, 'forbidden');
  t.false(await tagExists(tag));
  isProblem(t, await app.api.get(`${PKG}/${name}`, app.sysadmin), 404, 'not_found');

  const bySysadmin = await app.api.post(PKG, { name, ownerOrg: org.name, licenseId: 'mit', groups: [category.body.id] }, app.sysadmin);
  t.is(bySysadmin.status, 201, bySysadmin.text);
  t.deepEqual(
    bySysadmin.body.groups.map((g: { name: string }) => g.name),
    [category.body.name],
  );

  const unknown = await app.api.post(
    PKG,
    { name: unique('in-cat'), ownerOrg: org.name, licenseId: 'mit', groups: [unique('no-cat')] },
    as(people.editor),
  );
  isProblem(t, unknown, 422, 'validation_failed');
  t.deepEqual(fieldPaths(unknown), ['groups.0']);
});

// --- POST /packages/drafts: (none) → draft -------------------------------------------------------

test('POST /packages/drafts: any signed-in user gets a draft with a unique placeholder name', async (t) => {
  isProblem(t, await app.api.post(`${PKG}/drafts`, {}, anonymous), 401, 'unauthenticated');

  const a = await createDraft(t, people.outsider);
  const b = await createDraft(t, people.outsider, { title: 'Second' });
  for (const d of [a, b]) {
    t.regex(d.id, UUID);
    t.regex(d.name, PLACEHOLDER);
    t.like(d, {
      state: 'draft',
      ownerOrg: null,
      organization: null,
      licenseId: null,
      private: false,
      publishedAt: null,
      deletionIncomplete: false,
      creatorUserId: people.outsider.id,
    });
    t.deepEqual(d.resources, []);
  }
  t.is(b.title, 'Second');
  t.not(a.name, b.name);

  const named = await createDraft(t, people.outsider, { name: unique('named-draft'), licenseId: 'mit', tags: ['x'] });
  t.false(PLACEHOLDER.test(named.name));
  t.like(named, { licenseId: 'mit', tags: ['x'], state: 'draft' });
});

test('POST /packages/drafts with an ownerOrg needs editor rights there', async (t) => {
  const org = await orgWithRoles(t);
  isProblem(t, await app.api.post(`${PKG}/drafts`, { ownerOrg: org.name }, as(people.member)), 403, 'forbidden');
  isProblem(t, await app.api.post(`${PKG}/drafts`, { ownerOrg: org.name }, as(people.outsider)), 403, 'forbidden');
  const unknown = await app.api.post(`${PKG}/drafts`, { ownerOrg: unique('nope') }, as(people.editor));
  isProblem(t, unknown, 422, 'validation_failed');
  t.deepEqual(fieldPaths(unknown), ['ownerOrg']);
  const ok = await createDraft(t, people.editor, { ownerOrg: org.id });
  t.like(ok, { ownerOrg: org.id, state: 'draft', organization: { name: org.name } });
});

test('a draft is seen only with ?state=draft, and only by its creator, org editors/admins and the sysadmin', async (t) => {
  const org = await orgWithRoles(t);
  const draft = await createDraft(t, people.editor, { ownerOrg: org.name, name: unique('hidden') });
  const mine = await createDraft(t, people.creator);

  for (const ref of [draft.name, draft.id]) {
    for (const who of [anonymous, as(people.editor), app.sysadmin]) {
      isProblem(t, await app.api.get(`${PKG}/${ref}`, who), 404, 'not_found');
    }
  }
  const path = `${PKG}/${draft.id}?state=draft`;
  for (const who of [as(people.editor), as(people.admin), app.sysadmin]) {
    const res = await app.api.get(path, who);
    t.is(res.status, 200, res.text);
    t.is(res.body.id, draft.id);
  }
  t.is((await app.api.get(`${PKG}/${draft.name}?state=draft`, as(people.admin))).status, 200);
  // `?state=draft` needs auth (spec §4): anonymous is 401, whoever else may not see it 404.
  isProblem(t, await app.api.get(path, anonymous), 401, 'unauthenticated');
  for (const who of [as(people.member), as(people.outsider), as(people.creator)]) {
    isProblem(t, await app.api.get(path, who), 404, 'not_found');
  }

  // A draft without an organization: its creator and the sysadmin only.
  t.is((await app.api.get(`${PKG}/${mine.id}?state=draft`, as(people.creator))).status, 200);
  t.is((await app.api.get(`${PKG}/${mine.id}?state=draft`, app.sysadmin)).status, 200);
  isProblem(t, await app.api.get(`${PKG}/${mine.id}?state=draft`, anonymous), 401, 'unauthenticated');
  for (const who of [as(people.editor), as(people.outsider)]) {
    isProblem(t, await app.api.get(`${PKG}/${mine.id}?state=draft`, who), 404, 'not_found');
  }
  // ?state=draft never finds an active dataset.
  const active = await createActive(t, org);
  isProblem(t, await app.api.get(`${PKG}/${active.id}?state=draft`, as(people.editor)), 404, 'not_found');
});

// --- PUT -----------------------------------------------------------------------------------------

test('PUT on a draft is partial: absent fields kept, name null regenerates the placeholder, ownerOrg null clears', async (t) => {
  const org = await orgWithRoles(t);
  const draft = await createDraft(t, people.editor, { title: 'T', notes: 'N', licenseId: 'mit', ownerOrg: org.name, tags: ['keep'] });
  const placeholder = draft.name;

  const named = await app.api.put(`${PKG}/${draft.id}`, { name: unique('chosen') }, as(people.editor));
  t.is(named.status, 200, named.text);
  t.like(named.body, { title: 'T', notes: 'N', licenseId: 'mit', ownerOrg: org.id, state: 'draft' });
  t.deepEqual(named.body.tags, ['keep']);
  t.false(PLACEHOLDER.test(named.body.name));

  const cleared = await app.api.put(`${PKG}/${draft.id}`, { name: null, ownerOrg: null, notes: null }, as(people.editor));
  t.is(cleared.status, 200, cleared.text);
  t.regex(cleared.body.name, PLACEHOLDER);
  t.not(cleared.body.name, placeholder, 'a fresh placeholder');
  t.like(cleared.body, { ownerOrg: null, organization: null, notes: null, title: 'T', licenseId: 'mit', state: 'draft' });

  // Both block publishing again.
  const publish = await app.api.post(`${PKG}/${draft.id}/publish`, undefined, as(people.editor));
  isProblem(t, publish, 400, 'publish_requirements_missing');
  t.deepEqual(fieldPaths(publish), ['name', 'ownerOrg']);

  const detail = await app.api.get(`${PKG}/${draft.id}?state=draft`, as(people.editor));
  t.deepEqual({ ...detail.body, updatedAt: null }, { ...cleared.body, updatedAt: null });
});

test('PUT on a draft: its creator may edit it; others may not; moving it into an organization needs editor rights', async (t) => {
  const org = await orgWithRoles(t);
  const draft = await createDraft(t, people.creator);
  const mine = await app.api.put(`${PKG}/${draft.id}`, { title: 'Mine' }, as(people.creator));
  t.is(mine.status, 200, mine.text);
  t.is(mine.body.title, 'Mine');
  isProblem(t, await app.api.put(`${PKG}/${draft.id}`, { title: 'x' }, as(people.outsider)), 404, 'not_found');
  isProblem(t, await app.api.put(`${PKG}/${draft.id}`, { title: 'x' }, anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.put(`${PKG}/${draft.id}`, { ownerOrg: org.name }, as(people.creator)), 403, 'forbidden');
  const after = await app.api.get(`${PKG}/${draft.id}?state=draft`, as(people.creator));
  t.like(after.body, { title: 'Mine', ownerOrg: null });
});

test('PUT on an active dataset is a full replacement: omitted fields cleared, resources untouched', async (t) => {
  const org = await orgWithRoles(t);
  const ds = await createActive(t, org, {
    title: 'Old',
    notes: 'Old notes',
    version: '1',
    private: true,
    tags: ['a', 'b'],
    author: 'Someone',
    resources: [link(1), link(2)],
  });

  const res = await app.api.put(`${PKG}/${ds.id}`, { name: ds.name, ownerOrg: org.id, licenseId: 'odbl', title: 'New' }, as(people.editor));
  t.is(res.status, 200, res.text);
  t.like(res.body, {
    id: ds.id,
    name: ds.name,
    title: 'New',
    notes: null,
    version: null,
    author: null,
    private: false,
    licenseId: 'odbl',
    ownerOrg: org.id,
    state: 'active',
    publishedAt: ds.publishedAt,
    createdAt: ds.createdAt,
  });
  t.deepEqual(res.body.tags, []);
  t.deepEqual(res.body.groups, []);
  t.deepEqual(res.body.resources, ds.resources);
  t.deepEqual((await app.api.get(`${PKG}/${ds.id}`)).body, res.body);

  const renamed = await app.api.put(
    `${PKG}/${ds.name}`,
    { name: unique('renamed'), ownerOrg: org.name, licenseId: 'odbl' },
    as(people.editor),
  );
  t.is(renamed.status, 200, renamed.text);
  t.is((await app.api.get(`${PKG}/${renamed.body.name}`)).body.id, ds.id);
});

test('PUT on an active dataset without name, ownerOrg or licenseId is 422 naming each, and changes nothing', async (t) => {
  const org = await orgWithRoles(t);
  const ds = await createActive(t, org, { title: 'Kept' });
  const res = await app.api.put(`${PKG}/${ds.id}`, { title: 'Lost' }, as(people.editor));
  isProblem(t, res, 422, 'validation_failed');
  t.deepEqual(fieldPaths(res), ['licenseId', 'name', 'ownerOrg']);
  const nulls = await app.api.put(`${PKG}/${ds.id}`, { name: null, ownerOrg: null, licenseId: null }, as(people.editor));
  isProblem(t, nulls, 422, 'validation_failed');
  t.deepEqual(fieldPaths(nulls), ['licenseId', 'name', 'ownerOrg']);
  t.is((await app.api.get(`${PKG}/${ds.id}`)).body.title, 'Kept');
});

test('PUT on an active dataset: a member 403, an outsider of a private one 404, a taken name 409', async (t) => {
  const org = await orgWithRoles(t);
  const ds = await createActive(t, org, { private: true });
  const other = await createActive(t, org);
  const body = { name: ds.name, ownerOrg: org.name, licenseId: 'mit' };
  isProblem(t, await app.api.put(`${PKG}/${ds.id}`, body, as(people.member)), 403, 'forbidden');
  isProblem(t, await app.api.put(`${PKG}/${ds.id}`, body, as(people.outsider)), 404, 'not_found');
  const taken = await app.api.put(`${PKG}/${ds.id}`, { ...body, name: other.name }, as(people.editor));
  isProblem(t, taken, 409, 'conflict');
  t.deepEqual(fieldPaths(taken), ['name']);
});

// --- publish -------------------------------------------------------------------------------------

test('publishing a draft with requirements missing is 400 listing each; the draft stays a draft', async (t) => {
  const draft = await createDraft(t, people.creator);
  const res = await app.api.post(`${PKG}/${draft.id}/publish`, undefined, as(people.creator));
  isProblem(t, res, 400, 'publish_requirements_missing');
  t.deepEqual(fieldPaths(res), ['licenseId', 'name', 'ownerOrg']);

  await app.api.put(`${PKG}/${draft.id}`, { licenseId: 'mit' }, as(people.creator));
  const placeholderOnly = await app.api.post(`${PKG}/${draft.id}/publish`, undefined, as(people.creator));
  isProblem(t, placeholderOnly, 400, 'publish_requirements_missing');
  t.deepEqual(fieldPaths(placeholderOnly), ['name', 'ownerOrg']);

  const after = await app.api.get(`${PKG}/${draft.id}?state=draft`, as(people.creator));
  t.like(after.body, { state: 'draft', publishedAt: null });
});

test('publishing a draft makes it active with publishedAt set; the transition is one-way', async (t) => {
  const org = await orgWithRoles(t);
  const draft = await createDraft(t, people.editor, { ownerOrg: org.name });
  await app.api.post(`${PKG}/${draft.id}/resources`, link(1), as(people.editor));
  const named = await app.api.put(`${PKG}/${draft.id}`, { name: unique('to-publish'), licenseId: 'cc0' }, as(people.editor));
  t.is(named.status, 200, named.text);

  const res = await app.api.post(`${PKG}/${named.body.name}/publish`, undefined, as(people.editor));
  t.is(res.status, 200, res.text);
  t.like(res.body, { id: draft.id, state: 'active', name: named.body.name, licenseId: 'cc0', ownerOrg: org.id });
  t.regex(res.body.publishedAt, ISO);
  t.false('deletionIncomplete' in res.body);
  t.is(res.body.resources.length, 1);

  const pub = await app.api.get(`${PKG}/${draft.id}`);
  t.is(pub.status, 200);
  t.is(pub.body.state, 'active');
  isProblem(t, await app.api.get(`${PKG}/${draft.id}?state=draft`, as(people.editor)), 404, 'not_found');
  // Now active, a PUT is a full replacement (no way back to draft).
  isProblem(t, await app.api.put(`${PKG}/${draft.id}`, { title: 'partial?' }, as(people.editor)), 422, 'validation_failed');
});

test('a draft creator may publish into an organization only while an editor there (403 once only a member)', async (t) => {
  const org = await orgWithRoles(t);
  const creator = await app.api.newUser(unique('demoted'));
  await setOrgRole(t, org.name, creator, 'editor');
  const draft = await createDraft(t, creator, { name: unique('demote'), ownerOrg: org.name, licenseId: 'mit' });
  await setOrgRole(t, org.name, creator, 'member');

  isProblem(t, await app.api.post(`${PKG}/${draft.id}/publish`, undefined, as(creator)), 403, 'forbidden');
  const still = await app.api.get(`${PKG}/${draft.id}?state=draft`, as(creator));
  t.like(still.body, { state: 'draft', publishedAt: null });

  // An editor of the organization may publish someone else's draft.
  const res = await app.api.post(`${PKG}/${draft.id}/publish`, undefined, as(people.editor));
  t.is(res.status, 200, res.text);
  t.is(res.body.state, 'active');
});

test('publish: anonymous 401; someone who cannot see the draft 404', async (t) => {
  const draft = await createDraft(t, people.creator, { name: unique('unseen') });
  isProblem(t, await app.api.post(`${PKG}/${draft.id}/publish`, undefined, anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.post(`${PKG}/${draft.id}/publish`, undefined, as(people.outsider)), 404, 'not_found');
});

test('publishing an active dataset answers 200 and changes nothing', async (t) => {
  const org = await orgWithRoles(t);
  const ds = await createActive(t, org, { resources: [link(1)] });
  const res = await app.api.post(`${PKG}/${ds.id}/publish`, undefined, as(people.editor));
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, ds);
  t.deepEqual((await app.api.get(`${PKG}/${ds.id}`)).body, ds);
  isProblem(t, await app.api.post(`${PKG}/${ds.id}/publish`, undefined, as(people.member)), 403, 'forbidden');
});

// --- DELETE, restore -----------------------------------------------------------------------------

test('DELETE of an active dataset is a soft delete, seen only by org editors+ and the sysadmin', async (t) => {
  const org = await orgWithRoles(t);
  const ds = await createActive(t, org, { resources: [link(1)] });
  isProblem(t, await app.api.delete(`${PKG}/${ds.id}`, anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.delete(`${PKG}/${ds.id}`, as(people.member)), 403, 'forbidden');
  isProblem(t, await app.api.delete(`${PKG}/${ds.id}`, as(people.outsider)), 403, 'forbidden');

  const del = await app.api.delete(`${PKG}/${ds.name}`, as(people.editor));
  t.is(del.status, 204, del.text);
  t.is(del.text, '');

  for (const who of [anonymous, as(people.outsider), as(people.member)]) {
    isProblem(t, await app.api.get(`${PKG}/${ds.id}`, who), 404, 'not_found');
  }
  for (const who of [as(people.editor), as(people.admin), app.sysadmin]) {
    const res = await app.api.get(`${PKG}/${ds.id}`, who);
    t.is(res.status, 200, res.text);
    t.is(res.body.state, 'deleted');
    t.is(res.body.resources.length, 1, 'resources are kept until a purge');
  }
  // Deleted datasets cannot be edited or published; a second DELETE changes nothing.
  isProblem(
    t,
    await app.api.put(`${PKG}/${ds.id}`, { name: ds.name, ownerOrg: org.name, licenseId: 'mit' }, as(people.editor)),
    404,
    'not_found',
  );
  isProblem(t, await app.api.post(`${PKG}/${ds.id}/publish`, undefined, as(people.editor)), 404, 'not_found');
  isProblem(t, await app.api.post(`${PKG}/${ds.id}/resources`, link(2), as(people.editor)), 404, 'not_found');
  isProblem(t, await app.api.put(`/api/v1/resources/${ds.resources[0].id}`, link(2), as(people.editor)), 404, 'not_found');
  isProblem(
    t,
    await app.api.put(`${PKG}/${ds.id}/resources/reorder`, { order: [ds.resources[0].id] }, as(people.editor)),
    404,
    'not_found',
  );
  t.is((await app.api.delete(`${PKG}/${ds.id}`, as(people.editor))).status, 204);
  t.is((await app.api.get(`${PKG}/${ds.id}`, app.sysadmin)).body.state, 'deleted');
  // The name stays taken while the dataset exists.
  isProblem(t, await app.api.post(PKG, { name: ds.name, ownerOrg: org.name, licenseId: 'mit' }, as(people.editor)), 409, 'conflict');
});

test('restore is sysadmin only and returns a deleted dataset to active; an active one is 409', async (t) => {
  const org = await orgWithRoles(t);
  const ds = await createActive(t, org);
  isProblem(t, await app.api.post(`${PKG}/${ds.id}/restore`, undefined, app.sysadmin), 409, 'conflict');
  t.is((await app.api.delete(`${PKG}/${ds.id}`, as(people.editor))).status, 204);

  isProblem(t, await app.api.post(`${PKG}/${ds.id}/restore`, undefined, anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.post(`${PKG}/${ds.id}/restore`, undefined, as(people.admin)), 403, 'forbidden');
  isProblem(t, await app.api.post(`${PKG}/${ds.id}/restore`, undefined, as(people.editor)), 403, 'forbidden');
  t.is((await app.api.get(`${PKG}/${ds.id}`, app.sysadmin)).body.state, 'deleted');

  const res = await app.api.post(`${PKG}/${ds.name}/restore`, undefined, app.sysadmin);
  t.is(res.status, 200, res.text);
  t.like(res.body, { id: ds.id, state: 'active', publishedAt: ds.publishedAt });
  const pub = await app.api.get(`${PKG}/${ds.id}`);
  t.is(pub.status, 200);
  t.is(pub.body.state, 'active');
  isProblem(t, await app.api.post(`${PKG}/${ds.id}/restore`, undefined, app.sysadmin), 409, 'conflict');
  isProblem(t, await app.api.post(`${PKG}/${unique('missing')}/restore`, undefined, app.sysadmin), 404, 'not_found');
});

test('DELETE of a draft by its creator removes it and its resources for good', async (t) => {
  const draft = await createDraft(t, people.creator, { name: unique('doomed') });
  const added = await app.api.post(`${PKG}/${draft.id}/resources`, link(1), as(people.creator));
  t.is(added.status, 201, added.text);

  isProblem(t, await app.api.delete(`${PKG}/${draft.id}`, as(people.outsider)), 404, 'not_found');
  const del = await app.api.delete(`${PKG}/${draft.id}`, as(people.creator));
  t.is(del.status, 204, del.text);
  isProblem(t, await app.api.get(`${PKG}/${draft.id}?state=draft`, as(people.creator)), 404, 'not_found');
  isProblem(t, await app.api.get(`${PKG}/${draft.id}?state=draft`, app.sysadmin), 404, 'not_found');
  isProblem(t, await app.api.get(`/api/v1/resources/${added.body.id}`, app.sysadmin), 404, 'not_found');
  isProblem(t, await app.api.delete(`${PKG}/${draft.id}`, as(people.creator)), 404, 'not_found');
  // Its name is free again.
  t.is((await app.api.post(`${PKG}/drafts`, { name: draft.name }, as(people.creator))).status, 201);
});

test('DELETE of an organization draft by an org editor removes it; a member may not', async (t) => {
  const org = await orgWithRoles(t);
  const creator = await app.api.newUser(unique('draft-owner'));
  await setOrgRole(t, org.name, creator, 'editor');
  const draft = await createDraft(t, creator, { ownerOrg: org.name });
  isProblem(t, await app.api.delete(`${PKG}/${draft.id}`, as(people.member)), 404, 'not_found');
  t.is((await app.api.delete(`${PKG}/${draft.id}`, as(people.editor))).status, 204);
  isProblem(t, await app.api.get(`${PKG}/${draft.id}?state=draft`, as(creator)), 404, 'not_found');
});

// --- resources -----------------------------------------------------------------------------------

test('POST /packages/{id}/resources adds a resource at the end (org editor); duplicates 409, extras 422', async (t) => {
  const org = await orgWithRoles(t);
  const ds = await createActive(t, org, { resources: [link(1)] });
  const path = `${PKG}/${ds.id}/resources`;

  isProblem(t, await app.api.post(path, link(2), anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.post(path, link(2), as(people.member)), 403, 'forbidden');
  isProblem(t, await app.api.post(path, link(2), as(people.outsider)), 403, 'forbidden');

  const res = await app.api.post(path, { ...link(2), description: 'Second', mimetype: 'text/csv' }, as(people.editor));
  t.is(res.status, 201, res.text);
  t.regex(res.body.id, UUID);
  t.like(res.body, {
    packageId: ds.id,
    name: 'Resource 2',
    description: 'Second',
    url: link(2).url,
    urlType: 'link',
    format: 'CSV',
    mimetype: 'text/csv',
    size: null,
    hash: null,
    position: 1,
    extras: {},
  });
  t.regex(res.body.createdAt, ISO);

  const dup = await app.api.post(path, { ...link(1), name: 'Same URL' }, as(people.editor));
  isProblem(t, dup, 409, 'conflict');
  t.deepEqual(fieldPaths(dup), ['url']);

  const extras = await app.api.post(path, { ...link(3), extras: { pipeline: 'done' } }, as(people.editor));
  isProblem(t, extras, 422, 'validation_failed');
  t.deepEqual(fieldPaths(extras), ['extras']);

  const noUrl = await app.api.post(path, { name: 'no url' }, as(people.editor));
  isProblem(t, noUrl, 422, 'validation_failed');
  t.deepEqual(fieldPaths(noUrl), ['url']);

  const upload = await app.api.post(path, { name: 'Upload', urlType: 'upload', format: 'csv' }, as(people.editor));
  t.is(upload.status, 201, upload.text);
  t.like(upload.body, { url: null, urlType: 'upload', position: 2 });

  // By name too; an unknown dataset is 404.
  t.is((await app.api.post(`${PKG}/${ds.name}/resources`, link(4), as(people.editor))).status, 201);
  isProblem(t, await app.api.post(`${PKG}/${unique('nope')}/resources`, link(5), as(people.editor)), 404, 'not_found');

  const list = await app.api.get(path);
  t.is(list.status, 200);
  t.is(list.body.count, 4);
  t.deepEqual(
    list.body.results.map((r: { name: string }) => r.name),
    ['Resource 1', 'Resource 2', 'Upload', 'Resource 4'],
  );
  t.deepEqual(
    list.body.results.map((r: { position: number }) => r.position),
    [0, 1, 2, 3],
  );
});

test('GET /resources/{id} is the record; PUT replaces it fully (extras 422); DELETE removes it', async (t) => {
  const org = await orgWithRoles(t);
  const ds = await createActive(t, org, { resources: [link(1, { description: 'first', mimetype: 'text/csv' }), link(2)] });
  const [first, second] = ds.resources;

  const detail = await app.api.get(`/api/v1/resources/${first.id}`);
  t.is(detail.status, 200);
  t.deepEqual(detail.body, first);
  isProblem(t, await app.api.get('/api/v1/resources/00000000-0000-4000-8000-000000000000'), 404, 'not_found');
  isProblem(t, await app.api.get('/api/v1/resources/not-a-uuid'), 404, 'not_found');

  const path = `/api/v1/resources/${first.id}`;
  isProblem(t, await app.api.put(path, { url: 'https://example.org/new.csv' }, anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.put(path, { url: 'https://example.org/new.csv' }, as(people.member)), 403, 'forbidden');

  const replaced = await app.api.put(path, { url: 'https://example.org/new.json', format: 'json' }, as(people.editor));
  t.is(replaced.status, 200, replaced.text);
  t.like(replaced.body, {
    id: first.id,
    packageId: ds.id,
    name: null,
    description: null,
    mimetype: null,
    url: 'https://example.org/new.json',
    format: 'JSON',
    urlType: 'link',
    position: 0,
    extras: {},
  });

  const extras = await app.api.put(path, { url: 'https://example.org/new.json', extras: {} }, as(people.editor));
  isProblem(t, extras, 422, 'validation_failed');
  t.deepEqual(fieldPaths(extras), ['extras']);
  const noUrl = await app.api.put(path, { name: 'no url' }, as(people.editor));
  isProblem(t, noUrl, 422, 'validation_failed');
  t.deepEqual(fieldPaths(noUrl), ['url']);
  const dup = await app.api.put(path, { url: second.url }, as(people.editor));
  isProblem(t, dup, 409, 'conflict');
  t.deepEqual((await app.api.get(path)).body, replaced.body);

  isProblem(t, await app.api.delete(`/api/v1/resources/${second.id}`, as(people.member)), 403, 'forbidden');
  const del = await app.api.delete(`/api/v1/resources/${second.id}`, as(people.editor));
  t.is(del.status, 204, del.text);
  isProblem(t, await app.api.get(`/api/v1/resources/${second.id}`), 404, 'not_found');
  isProblem(t, await app.api.delete(`/api/v1/resources/${second.id}`, as(people.editor)), 404, 'not_found');
  const list = await app.api.get(`${PKG}/${ds.id}/resources`);
  t.deepEqual(
    list.body.results.map((r: { id: string }) => r.id),
    [first.id],
  );
});

test('PUT /packages/{id}/resources/reorder takes every resource once; anything else is 422', async (t) => {
  const org = await orgWithRoles(t);
  const ds = await createActive(t, org, { resources: [link(1), link(2), link(3)] });
  const [a, b, c] = ds.resources.map((r: { id: string }) => r.id);
  const path = `${PKG}/${ds.id}/resources/reorder`;

  const res = await app.api.put(path, { order: [c, a, b] }, as(people.editor));
  t.is(res.status, 200, res.text);
  t.deepEqual(
    res.body.results.map((r: { id: string }) => r.id),
    [c, a, b],
  );
  t.deepEqual(
    res.body.results.map((r: { position: number }) => r.position),
    [0, 1, 2],
  );
  const list = await app.api.get(`${PKG}/${ds.id}/resources`);
  t.deepEqual(
    list.body.results.map((r: { id: string }) => r.id),
    [c, a, b],
  );
  t.deepEqual(
    (await app.api.get(`${PKG}/${ds.id}`)).body.resources.map((r: { id: string }) => r.id),
    [c, a, b],
  );

  const other = await createActive(t, org, { resources: [link(9)] });
  for (const order of [[a, b], [a, b, c, a], [a, b, b], [a, b, other.resources[0].id], []]) {
    const bad = await app.api.put(path, { order }, as(people.editor));
    isProblem(t, bad, 422, 'validation_failed');
    t.deepEqual(fieldPaths(bad), ['order'], JSON.stringify(order));
  }
  isProblem(t, await app.api.put(path, { order: [a, b, 'not-a-uuid'] }, as(people.editor)), 422, 'validation_failed');
  isProblem(t, await app.api.put(path, { order: [a, b, c] }, as(people.member)), 403, 'forbidden');
  isProblem(t, await app.api.put(path, { order: [a, b, c] }, anonymous), 401, 'unauthenticated');
  t.deepEqual(
    (await app.api.get(`${PKG}/${ds.id}/resources`)).body.results.map((r: { id: string }) => r.id),
    [c, a, b],
  );
});

test('resources of a private dataset are 404 to outsiders and visible to org members', async (t) => {
  const org = await orgWithRoles(t);
  const ds = await createActive(t, org, { private: true, resources: [link(1)] });
  const id = ds.resources[0].id;
  for (const who of [anonymous, as(people.outsider)]) {
    isProblem(t, await app.api.get(`/api/v1/resources/${id}`, who), 404, 'not_found');
    isProblem(t, await app.api.get(`${PKG}/${ds.id}/resources`, who), 404, 'not_found');
    isProblem(t, await app.api.get(`${PKG}/${ds.id}`, who), 404, 'not_found');
  }
  isProblem(t, await app.api.put(`/api/v1/resources/${id}`, link(1), as(people.outsider)), 404, 'not_found');
  isProblem(t, await app.api.delete(`/api/v1/resources/${id}`, as(people.outsider)), 404, 'not_found');
  isProblem(t, await app.api.post(`${PKG}/${ds.id}/resources`, link(2), as(people.outsider)), 404, 'not_found');
  for (const who of [as(people.member), as(people.editor), app.sysadmin]) {
    t.is((await app.api.get(`/api/v1/resources/${id}`, who)).status, 200);
    t.is((await app.api.get(`${PKG}/${ds.id}/resources`, who)).body.count, 1);
  }
});

// Serial: it reads totals over the whole catalog, so nothing else may write meanwhile.
test.serial('/resources/count and /resources/formats count only active datasets the caller may see', async (t) => {
  const org = await orgWithRoles(t, 'count-org');
  const fmt = `FMT${Date.now()}`;
  const res = (n: string) => link(`count-${n}`, { format: fmt.toLowerCase() });
  const callers = {
    anonymous,
    member: as(people.member),
    outsider: as(people.outsider),
    editor: as(people.editor),
    sysadmin: app.sysadmin,
  };
  const count = async (who: Auth) => (await app.api.get('/api/v1/resources/count', who)).body.count as number;
  const formatCount = async (who: Auth) => {
    const r = await app.api.get('/api/v1/resources/formats', who);
    t.is(r.status, 200);
    return (r.body.results.find((f: { format: string }) => f.format === fmt)?.count ?? 0) as number;
  };
  const before: Record<string, number> = {};
  for (const [k, who] of Object.entries(callers)) before[k] = await count(who);

  await createActive(t, org, { resources: [res('p1'), res('p2')] }); // public: 2
  await createActive(t, org, { private: true, resources: [res('x1')] }); // private: 1
  const deleted = await createActive(t, org, { resources: [res('d1'), { name: 'no format', url: 'https://example.org/nf' }] });
  t.is((await app.api.delete(`${PKG}/${deleted.id}`, as(people.editor))).status, 204);
  const draft = await createDraft(t, people.editor, { ownerOrg: org.name });
  t.is((await app.api.post(`${PKG}/${draft.id}/resources`, res('dr1'), as(people.editor))).status, 201);

  const expected = { anonymous: 2, outsider: 2, member: 3, editor: 3, sysadmin: 3 };
  for (const [k, who] of Object.entries(callers)) {
    t.is((await count(who)) - before[k]!, expected[k as keyof typeof expected], `count for ${k}`);
    t.is(await formatCount(who), expected[k as keyof typeof expected], `formats for ${k}`);
  }

  const formats = await app.api.get('/api/v1/resources/formats');
  t.deepEqual(Object.keys(formats.body).sort(), ['count', 'limit', 'offset', 'results']);
  const counts = formats.body.results.map((f: { count: number }) => f.count);
  t.deepEqual(
    counts,
    [...counts].sort((x, y) => y - x),
    'most used first',
  );
  t.false(formats.body.results.some((f: { format: string | null }) => f.format === null));
});

test('GET /packages/{id} (one statement) answers exactly the record the writes answer (entities), drafts and deleted ones included', async (t) => {
  const org = await orgWithRoles(t);
  const category = await app.api.post('/api/v1/groups', { name: unique('cat'), title: 'Zebra category' }, app.sysadmin);
  const other = await app.api.post('/api/v1/groups', { name: unique('cat'), title: 'Another' }, app.sysadmin);
  // The sysadmin: a category takes datasets from its members only.
  const made = await app.api.post(
    PKG,
    {
      name: unique('ds'),
      ownerOrg: org.name,
      licenseId: 'cc-by-4.0',
      title: 'Read model',
      notes: 'Ünïcode notes',
      tags: ['zeta', 'Alpha', 'beta'],
      groups: [category.body.name, other.body.name],
      author: 'A. Author',
      maintainerEmail: 'm@example.org',
      version: '1.0',
      url: 'https://example.org/page',
      resources: [
        { url: 'https://example.org/b.csv', name: 'Second', format: 'CSV' },
        { url: 'https://example.org/a.json', name: 'First', description: 'JSON' },
      ],
    },
    app.sysadmin,
  );
  t.is(made.status, 201, made.text);
  const created = made.body;
  t.deepEqual((await app.api.get(`${PKG}/${created.id}`, as(people.editor))).body, created);
  t.deepEqual((await app.api.get(`${PKG}/${created.name}`)).body, created);
  const { name, ownerOrg, licenseId, notes, tags, author, maintainerEmail, version, url } = created;
  const groups = created.groups.map((g: { name: string }) => g.name);
  const input = { name, ownerOrg, licenseId, notes, tags, groups, author, maintainerEmail, version, url, title: 'Read model, again' };
  const updated = await app.api.put(`${PKG}/${created.id}`, input, app.sysadmin);
  t.is(updated.status, 200, updated.text);
  t.deepEqual((await app.api.get(`${PKG}/${created.id}`)).body, updated.body);

  const draft = await createDraft(t, people.creator, { title: 'A draft' });
  t.deepEqual((await app.api.get(`${PKG}/${draft.id}?state=draft`, as(people.creator))).body, draft);

  t.is((await app.api.delete(`${PKG}/${created.id}`, as(people.editor))).status, 204);
  const deleted = await app.api.get(`${PKG}/${created.id}`, as(people.editor));
  t.like(deleted.body, { ...updated.body, state: 'deleted', updatedAt: deleted.body.updatedAt });
});
