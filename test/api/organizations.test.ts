import test, { type ExecutionContext } from 'ava';
import { fieldPaths, isProblem } from '../helpers/problem.ts';
import { startTestAppWithPeople, type People, type TestApp } from '../helpers/app.ts';
import { anonymous, as, type TestUser } from '../helpers/client.ts';
import { ISO, UUID } from '../helpers/formats.ts';
import { ORGANIZATIONS as BASE, createGroup, groupWithMembers, LISTED_GROUP_FIELDS } from '../helpers/groups.ts';
import { unique } from '../helpers/names.ts';

let app: TestApp;
/**
 * Users shared by the tests: each test gives them roles only in organizations it creates itself, and a
 * test that counts a user's organizations registers its own user.
 */
let people: People<'admin' | 'editor' | 'member' | 'outsider'>;
test.before(async () => {
  ({ app, people } = await startTestAppWithPeople('org', ['admin', 'editor', 'member', 'outsider']));
});
test.after.always(async () => app?.stop());

const newUser = (prefix: string): Promise<TestUser> => app.api.newUser(unique(prefix));
const createOrg = (t: ExecutionContext, fields: Record<string, unknown>) => createGroup(t, app, BASE, fields);

/** An organization with one user per role, added by the sysadmin. */
async function orgWithRoles(t: ExecutionContext, prefix: string) {
  const org = await groupWithMembers(t, app, BASE, { name: unique(prefix) }, people);
  return { org, ...people };
}

// --- list -------------------------------------------------------------------------------------------

test('GET /organizations lists active organizations in the list envelope, filtered by q and paged by name', async (t) => {
  const marker = unique('qmark');
  const names = [`${marker}-alpha`, `${marker}-beta`, `${marker}-gamma`];
  for (const name of names) await createOrg(t, { name });
  const byTitle = await createOrg(t, { name: unique('plain'), title: `Has ${marker.toUpperCase()} in its title` });
  await createOrg(t, { name: unique('unrelated') });

  const all = await app.api.get(BASE);
  t.is(all.status, 200);
  t.deepEqual(Object.keys(all.body).sort(), ['count', 'limit', 'offset', 'results']);
  t.like(all.body, { offset: 0, limit: 20 });
  t.true(all.body.count >= 5);

  const filtered = await app.api.get(`${BASE}?q=${marker}`);
  t.is(filtered.status, 200);
  t.like(filtered.body, { count: 4, offset: 0, limit: 20 });
  t.deepEqual(
    filtered.body.results.map((o: { name: string }) => o.name),
    [...names, byTitle.name].sort(),
  );
  const record = filtered.body.results[0];
  t.deepEqual(Object.keys(record).sort(), LISTED_GROUP_FIELDS);
  t.regex(record.id, UUID);
  t.is(record.state, 'active');

  const first = await app.api.get(`${BASE}?q=${marker}&limit=2`);
  const second = await app.api.get(`${BASE}?q=${marker}&limit=2&offset=2`);
  const beyond = await app.api.get(`${BASE}?q=${marker}&limit=2&offset=4`);
  t.like(first.body, { count: 4, offset: 0, limit: 2 });
  t.like(second.body, { count: 4, offset: 2, limit: 2 });
  t.deepEqual(beyond.body, { count: 4, offset: 4, limit: 2, results: [] });
  const paged = [...first.body.results, ...second.body.results].map((o: { name: string }) => o.name);
  t.deepEqual(
    paged,
    filtered.body.results.map((o: { name: string }) => o.name),
  );
});

test('GET /organizations?q treats LIKE wildcards literally', async (t) => {
  await createOrg(t, { name: unique('wild') });
  const percent = await app.api.get(`${BASE}?q=${encodeURIComponent('%')}`);
  t.is(percent.status, 200);
  t.is(percent.body.count, 0);
});

test('GET /organizations rejects bad paging and an unknown state with 400 naming the parameter', async (t) => {
  const limit = await app.api.get(`${BASE}?limit=0`);
  isProblem(t, limit, 400, 'invalid_parameters');
  t.deepEqual(fieldPaths(limit), ['limit']);
  const state = await app.api.get(`${BASE}?state=gone`);
  isProblem(t, state, 400, 'invalid_parameters');
  t.deepEqual(fieldPaths(state), ['state']);
});

test('GET /organizations?state=deleted is for sysadmins only', async (t) => {
  const kept = await createOrg(t, { name: unique('kept') });
  const gone = await createOrg(t, { name: unique('gone') });
  t.is((await app.api.delete(`${BASE}/${gone.name}`, app.sysadmin)).status, 204);
  const user = people.outsider;

  isProblem(t, await app.api.get(`${BASE}?state=deleted`, anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.get(`${BASE}?state=deleted`, as(user)), 403, 'forbidden');

  const deleted = await app.api.get(`${BASE}?state=deleted&limit=100`, app.sysadmin);
  t.is(deleted.status, 200);
  const names = deleted.body.results.map((o: { name: string }) => o.name);
  t.true(names.includes(gone.name));
  t.false(names.includes(kept.name));
  t.true(deleted.body.results.every((o: { state: string }) => o.state === 'deleted'));
});

// --- create -----------------------------------------------------------------------------------------

test('POST /organizations is for sysadmins: anonymous 401, a user 403', async (t) => {
  const user = people.outsider;
  const body = { name: unique('not-created') };
  isProblem(t, await app.api.post(BASE, body, anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.post(BASE, body, as(user)), 403, 'forbidden');
  isProblem(t, await app.api.post(BASE, body, { cookie: user.cookie }), 403, 'forbidden');
  isProblem(t, await app.api.get(`${BASE}/${body.name}`), 404, 'not_found');
});

test('POST /organizations creates an organization (201) and the title defaults to the name', async (t) => {
  const name = unique('created');
  const res = await app.api.post(BASE, { name }, app.sysadmin);
  t.is(res.status, 201);
  t.regex(res.body.id, UUID);
  t.like(res.body, { name, title: name, description: null, imageUrl: null, state: 'active' });
  t.regex(res.body.createdAt, ISO);
  t.regex(res.body.updatedAt, ISO);

  const blankTitle = await app.api.post(BASE, { name: unique('blank-title'), title: '   ' }, app.sysadmin);
  t.is(blankTitle.status, 201);
  t.is(blankTitle.body.title, blankTitle.body.name);

  const full = {
    name: unique('full'),
    title: 'Full Org',
    description: 'An organization with **every** field.',
    imageUrl: 'https://example.org/logo.png',
  };
  const created = await app.api.post(BASE, full, app.sysadmin);
  t.is(created.status, 201);
  t.like(created.body, { ...full, state: 'active' });
  t.deepEqual((await app.api.get(`${BASE}/${full.name}`)).body, created.body);
});

test('POST /organizations with a taken name is 409 on name; a category may share the name', async (t) => {
  const org = await createOrg(t, { name: unique('dup') });
  const again = await app.api.post(BASE, { name: org.name, title: 'Another' }, app.sysadmin);
  isProblem(t, again, 409, 'conflict');
  t.is(again.body.errors[0].path, 'name');

  const category = await app.api.post('/api/v1/groups', { name: org.name }, app.sysadmin);
  t.is(category.status, 201, 'names are unique per kind');
  t.not(category.body.id, org.id);
});

test('POST /organizations validates the body: 422 with one path per bad field', async (t) => {
  const bad = await app.api.post(BASE, { name: 'Not A Slug', imageUrl: 'ftp://example.org/x.png', extra: true }, app.sysadmin);
  isProblem(t, bad, 422, 'validation_failed');
  t.deepEqual(fieldPaths(bad), ['extra', 'imageUrl', 'name']);

  const missing = await app.api.post(BASE, { title: 'No name' }, app.sysadmin);
  isProblem(t, missing, 422, 'validation_failed');
  t.deepEqual(fieldPaths(missing), ['name']);

  for (const name of ['a', '-leading-dash', 'x'.repeat(101), 'dots.not.allowed']) {
    const res = await app.api.post(BASE, { name }, app.sysadmin);
    isProblem(t, res, 422, 'validation_failed');
    t.deepEqual(fieldPaths(res), ['name'], name);
  }

  const longTitle = await app.api.post(BASE, { name: unique('long-title'), title: 'x'.repeat(301) }, app.sysadmin);
  isProblem(t, longTitle, 422, 'validation_failed');
  t.deepEqual(fieldPaths(longTitle), ['title']);
});

test('POST /organizations refuses a name shaped like a UUID, which {nameOrId} would read as an id', async (t) => {
  const res = await app.api.post(BASE, { name: '3f2b8c1e-0a4d-4e5f-9b6c-7d8e9f0a1b2c' }, app.sysadmin);
  isProblem(t, res, 422, 'validation_failed');
  t.deepEqual(fieldPaths(res), ['name']);
});

// --- detail -----------------------------------------------------------------------------------------

test('GET /organizations/{nameOrId} finds by name and by id; unknown names and ids are 404', async (t) => {
  const org = await createOrg(t, { name: unique('detail'), title: 'Detail' });
  const byName = await app.api.get(`${BASE}/${org.name}`);
  t.is(byName.status, 200);
  t.deepEqual(byName.body, org);
  const byId = await app.api.get(`${BASE}/${org.id}`);
  t.is(byId.status, 200);
  t.deepEqual(byId.body, org);

  isProblem(t, await app.api.get(`${BASE}/no-such-org`), 404, 'not_found');
  isProblem(t, await app.api.get(`${BASE}/00000000-0000-4000-8000-000000000000`), 404, 'not_found');
  isProblem(t, await app.api.get(`${BASE}/${org.name.toUpperCase()}`), 404, 'not_found');
});

test('GET /organizations/{nameOrId} does not find a category', async (t) => {
  const category = await app.api.post('/api/v1/groups', { name: unique('only-a-category') }, app.sysadmin);
  t.is(category.status, 201);
  isProblem(t, await app.api.get(`${BASE}/${category.body.name}`), 404, 'not_found');
  isProblem(t, await app.api.get(`${BASE}/${category.body.id}`), 404, 'not_found');
});

// --- update -----------------------------------------------------------------------------------------

test('PUT /organizations/{nameOrId} is a full replacement by an org admin: omitted fields are cleared', async (t) => {
  const { org, admin } = await orgWithRoles(t, 'put');
  const filled = await app.api.put(
    `${BASE}/${org.name}`,
    { name: org.name, title: 'Filled', description: 'About us', imageUrl: 'https://example.org/a.png' },
    app.sysadmin,
  );
  t.is(filled.status, 200);
  t.like(filled.body, { title: 'Filled', description: 'About us', imageUrl: 'https://example.org/a.png' });

  await new Promise((r) => setTimeout(r, 5));
  const replaced = await app.api.put(`${BASE}/${org.id}`, { name: org.name, title: 'Replaced' }, as(admin));
  t.is(replaced.status, 200, replaced.text);
  t.like(replaced.body, { id: org.id, name: org.name, title: 'Replaced', description: null, imageUrl: null, state: 'active' });
  t.is(replaced.body.createdAt, org.createdAt);
  t.true(Date.parse(replaced.body.updatedAt) > Date.parse(filled.body.updatedAt));
  t.deepEqual((await app.api.get(`${BASE}/${org.name}`)).body, replaced.body);

  const untitled = await app.api.put(`${BASE}/${org.name}`, { name: org.name }, as(admin));
  t.is(untitled.body.title, org.name, 'an omitted title falls back to the name');
});

test('PUT /organizations/{nameOrId} can rename; the old name is then unknown', async (t) => {
  const org = await createOrg(t, { name: unique('old-name') });
  const newName = unique('new-name');
  const res = await app.api.put(`${BASE}/${org.name}`, { name: newName, title: 'Renamed' }, app.sysadmin);
  t.is(res.status, 200);
  t.like(res.body, { id: org.id, name: newName });
  isProblem(t, await app.api.get(`${BASE}/${org.name}`), 404, 'not_found');
  t.is((await app.api.get(`${BASE}/${newName}`)).body.id, org.id);
});

test('PUT /organizations/{nameOrId} needs an org admin: anonymous 401, editor, member and outsider 403', async (t) => {
  const { org, editor, member, outsider } = await orgWithRoles(t, 'put-deny');
  const body = { name: org.name, title: 'Hijacked' };
  isProblem(t, await app.api.put(`${BASE}/${org.name}`, body, anonymous), 401, 'unauthenticated');
  for (const user of [editor, member, outsider]) {
    isProblem(t, await app.api.put(`${BASE}/${org.name}`, body, as(user)), 403, 'forbidden');
  }
  t.is((await app.api.get(`${BASE}/${org.name}`)).body.title, org.title);
});

test('PUT /organizations/{nameOrId} to a taken name is 409 on name; invalid bodies are 422; unknown is 404', async (t) => {
  const taken = await createOrg(t, { name: unique('taken') });
  const org = await createOrg(t, { name: unique('renamer') });
  const clash = await app.api.put(`${BASE}/${org.name}`, { name: taken.name }, app.sysadmin);
  isProblem(t, clash, 409, 'conflict');
  t.is(clash.body.errors[0].path, 'name');
  t.is((await app.api.get(`${BASE}/${org.id}`)).body.name, org.name);

  const invalid = await app.api.put(`${BASE}/${org.name}`, { title: 'no name', color: 'red' }, app.sysadmin);
  isProblem(t, invalid, 422, 'validation_failed');
  t.deepEqual(fieldPaths(invalid), ['color', 'name']);

  isProblem(t, await app.api.put(`${BASE}/no-such-org`, { name: 'no-such-org' }, app.sysadmin), 404, 'not_found');
});

// --- delete, restore --------------------------------------------------------------------------------

test('DELETE /organizations/{nameOrId} soft-deletes: 204, then hidden from all but a sysadmin', async (t) => {
  const { org, admin, editor, member } = await orgWithRoles(t, 'del');
  isProblem(t, await app.api.delete(`${BASE}/${org.name}`, anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.delete(`${BASE}/${org.name}`, as(editor)), 403, 'forbidden');
  isProblem(t, await app.api.delete(`${BASE}/${org.name}`, as(member)), 403, 'forbidden');

  const del = await app.api.delete(`${BASE}/${org.name}`, as(admin));
  t.is(del.status, 204);
  t.is(del.text, '');

  for (const auth of [anonymous, as(admin), as(editor), as(member)]) {
    isProblem(t, await app.api.get(`${BASE}/${org.name}`, auth), 404, 'not_found');
    isProblem(t, await app.api.get(`${BASE}/${org.id}`, auth), 404, 'not_found');
  }
  const seen = await app.api.get(`${BASE}/${org.name}`, app.sysadmin);
  t.is(seen.status, 200);
  t.like(seen.body, { id: org.id, state: 'deleted' });

  t.is((await app.api.get(`${BASE}?q=${org.name}`, app.sysadmin)).body.count, 0, 'absent from the default list');
  const mine = await app.api.get('/api/v1/users/me/organizations?limit=100', as(admin));
  t.false(mine.body.results.some((o: { id: string }) => o.id === org.id));

  // Its former admin can no longer reach it; the sysadmin may delete again, which changes nothing.
  isProblem(t, await app.api.delete(`${BASE}/${org.name}`, as(admin)), 404, 'not_found');
  isProblem(t, await app.api.get(`${BASE}/${org.name}/members`, as(admin)), 404, 'not_found');
  t.is((await app.api.delete(`${BASE}/${org.name}`, app.sysadmin)).status, 204);
  isProblem(t, await app.api.delete(`${BASE}/no-such-org`, app.sysadmin), 404, 'not_found');
});

test('POST /organizations/{nameOrId}/restore is for sysadmins and brings the organization back', async (t) => {
  const { org, admin } = await orgWithRoles(t, 'restore');
  t.is((await app.api.delete(`${BASE}/${org.name}`, app.sysadmin)).status, 204);

  isProblem(t, await app.api.post(`${BASE}/${org.name}/restore`, undefined, anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.post(`${BASE}/${org.name}/restore`, undefined, as(admin)), 403, 'forbidden');
  isProblem(t, await app.api.get(`${BASE}/${org.name}`), 404, 'not_found');

  const restored = await app.api.post(`${BASE}/${org.name}/restore`, undefined, app.sysadmin);
  t.is(restored.status, 200);
  t.like(restored.body, { id: org.id, name: org.name, state: 'active' });

  t.like((await app.api.get(`${BASE}/${org.name}`)).body, { id: org.id, state: 'active' });
  t.is((await app.api.get(`${BASE}?q=${org.name}`)).body.count, 1);
  const mine = await app.api.get('/api/v1/users/me/organizations?limit=100', as(admin));
  t.like(
    mine.body.results.find((o: { id: string }) => o.id === org.id),
    { role: 'admin' },
    'memberships survive a soft delete',
  );

  isProblem(t, await app.api.post(`${BASE}/no-such-org/restore`, undefined, app.sysadmin), 404, 'not_found');
  isProblem(t, await app.api.post(`${BASE}/${org.name}/restore`, undefined, as(admin)), 403, 'forbidden');
});

// --- purge ------------------------------------------------------------------------------------------

test('POST /organizations/{nameOrId}/purge needs a soft delete first (409) and a sysadmin', async (t) => {
  const { org, admin } = await orgWithRoles(t, 'purge-guard');
  const active = await app.api.post(`${BASE}/${org.name}/purge`, undefined, app.sysadmin);
  isProblem(t, active, 409, 'conflict');
  isProblem(t, await app.api.post(`${BASE}/${org.name}/purge`, undefined, as(admin)), 403, 'forbidden');

  t.is((await app.api.delete(`${BASE}/${org.name}`, as(admin))).status, 204);
  isProblem(t, await app.api.post(`${BASE}/${org.name}/purge`, undefined, anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.post(`${BASE}/${org.name}/purge`, undefined, as(admin)), 403, 'forbidden');
  t.like((await app.api.get(`${BASE}/${org.id}`, app.sysadmin)).body, { state: 'deleted' }, 'still there');

  isProblem(t, await app.api.post(`${BASE}/no-such-org/purge`, undefined, app.sysadmin), 404, 'not_found');
});

test('purging an organization runs purge-org-<id> once and removes it with its memberships', async (t) => {
  const { org, admin, member } = await orgWithRoles(t, 'purge');
  t.is((await app.api.delete(`${BASE}/${org.name}`, app.sysadmin)).status, 204);

  // Two requests at once: both answer with the one workflow run.
  const [first, second] = await Promise.all([
    app.api.post(`${BASE}/${org.name}/purge`, undefined, app.sysadmin),
    app.api.post(`${BASE}/${org.id}/purge`, undefined, app.sysadmin),
  ]);
  t.is(first.status, 202, first.text);
  t.deepEqual(Object.keys(first.body).sort(), ['runId', 'uiUrl', 'workflowId']);
  t.is(first.body.workflowId, `purge-org-${org.id}`);
  t.truthy(first.body.runId);
  t.true(first.body.uiUrl.includes(encodeURIComponent(first.body.workflowId)), first.body.uiUrl);
  if (second.status === 202) {
    t.deepEqual(second.body, first.body, 'a repeat request joins the running purge');
  } else {
    isProblem(t, second, 404, 'not_found');
  }

  const deadline = Date.now() + 30_000;
  let detail = await app.api.get(`${BASE}/${org.id}`, app.sysadmin);
  while (detail.status === 200 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    detail = await app.api.get(`${BASE}/${org.id}`, app.sysadmin);
  }
  isProblem(t, detail, 404, 'not_found');

  // Once it is gone, a repeat request finds nothing to purge rather than starting another run.
  isProblem(t, await app.api.post(`${BASE}/${org.id}/purge`, undefined, app.sysadmin), 404, 'not_found');
  isProblem(t, await app.api.post(`${BASE}/${org.id}/restore`, undefined, app.sysadmin), 404, 'not_found');
  const deleted = await app.api.get(`${BASE}?state=deleted&q=${org.name}`, app.sysadmin);
  t.is(deleted.body.count, 0);

  for (const user of [admin, member]) {
    const mine = await app.api.get('/api/v1/users/me/organizations?limit=100', as(user));
    t.is(mine.status, 200);
    t.false(mine.body.results.some((o: { id: string }) => o.id === org.id));
  }
  const rows = await app.almanac.services.orm.em
    .fork()
    .getConnection()
    .execute<{ n: string }[]>('select count(*) as n from memberships where group_id = ?', [org.id]);
  t.is(Number(rows[0].n), 0, 'no membership row is left');

  // The name is free again.
  const reborn = await createOrg(t, { name: org.name });
  t.not(reborn.id, org.id);
});

// --- members ----------------------------------------------------------------------------------------

test('GET /organizations/{nameOrId}/members needs membership: anonymous 401, outsider 403, member and sysadmin 200', async (t) => {
  const { org, admin, editor, member, outsider } = await orgWithRoles(t, 'members');
  isProblem(t, await app.api.get(`${BASE}/${org.name}/members`, anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.get(`${BASE}/${org.name}/members`, as(outsider)), 403, 'forbidden');
  isProblem(t, await app.api.get(`${BASE}/no-such-org/members`, as(member)), 404, 'not_found');

  const expected = [
    { userId: admin.id, username: admin.username, displayName: null, role: 'admin' },
    { userId: editor.id, username: editor.username, displayName: null, role: 'editor' },
    { userId: member.id, username: member.username, displayName: null, role: 'member' },
  ].sort((a, b) => a.username.localeCompare(b.username));
  for (const auth of [as(member), as(editor), as(admin), app.sysadmin]) {
    const res = await app.api.get(`${BASE}/${org.id}/members`, auth);
    t.is(res.status, 200);
    t.deepEqual(res.body, { count: 3, offset: 0, limit: 20, results: expected });
  }
  const paged = await app.api.get(`${BASE}/${org.name}/members?limit=1&offset=1`, as(member));
  t.deepEqual(paged.body, { count: 3, offset: 1, limit: 1, results: [expected[1]] });
});

test('POST /organizations/{nameOrId}/members upserts: 201 when added, 200 when the role changes', async (t) => {
  const org = await createOrg(t, { name: unique('upsert') });
  const username = unique('carol');
  const reg = await app.api.post('/api/v1/auth/register', {
    username,
    email: `${username}@example.org`,
    password: 'password-123',
    displayName: 'Carol C.',
  });
  t.is(reg.status, 201);
  const row = { userId: reg.body.id, username, displayName: 'Carol C.' };

  const added = await app.api.post(`${BASE}/${org.name}/members`, { user: username, role: 'member' }, app.sysadmin);
  t.is(added.status, 201);
  t.deepEqual(added.body, { ...row, role: 'member' });

  const changed = await app.api.post(`${BASE}/${org.name}/members`, { user: reg.body.id, role: 'editor' }, app.sysadmin);
  t.is(changed.status, 200);
  t.deepEqual(changed.body, { ...row, role: 'editor' });

  const same = await app.api.post(`${BASE}/${org.id}/members`, { user: username, role: 'editor' }, app.sysadmin);
  t.is(same.status, 200);

  const list = await app.api.get(`${BASE}/${org.name}/members`, app.sysadmin);
  t.deepEqual(list.body.results, [{ ...row, role: 'editor' }], 'one membership, never a duplicate');
});

test('POST /organizations/{nameOrId}/members validates: unknown user 422 on user, bad role 422 on role', async (t) => {
  const org = await createOrg(t, { name: unique('member-validation') });
  const user = people.outsider;

  const unknownName = await app.api.post(`${BASE}/${org.name}/members`, { user: 'nobody-at-all', role: 'member' }, app.sysadmin);
  isProblem(t, unknownName, 422, 'validation_failed');
  t.deepEqual(fieldPaths(unknownName), ['user']);

  const unknownId = await app.api.post(
    `${BASE}/${org.name}/members`,
    { user: '00000000-0000-4000-8000-000000000000', role: 'member' },
    app.sysadmin,
  );
  isProblem(t, unknownId, 422, 'validation_failed');
  t.deepEqual(fieldPaths(unknownId), ['user']);

  const badRole = await app.api.post(`${BASE}/${org.name}/members`, { user: user.id, role: 'owner' }, app.sysadmin);
  isProblem(t, badRole, 422, 'validation_failed');
  t.deepEqual(fieldPaths(badRole), ['role']);

  const empty = await app.api.post(`${BASE}/${org.name}/members`, { extra: 1 }, app.sysadmin);
  isProblem(t, empty, 422, 'validation_failed');
  t.deepEqual(fieldPaths(empty), ['extra', 'role', 'user']);

  t.is((await app.api.get(`${BASE}/${org.name}/members`, app.sysadmin)).body.count, 0);
  isProblem(t, await app.api.post(`${BASE}/no-such-org/members`, { user: user.id, role: 'member' }, app.sysadmin), 404, 'not_found');
});

test('a soft-deleted user drops out of member lists and cannot be added; restored, they are back', async (t) => {
  const org = await createOrg(t, { name: unique('leaver-org') });
  const leaver = await newUser('leaver');
  t.is((await app.api.post(`${BASE}/${org.name}/members`, { user: leaver.id, role: 'editor' }, app.sysadmin)).status, 201);
  t.is((await app.api.delete(`/api/v1/admin/users/${leaver.id}`, app.sysadmin)).status, 204);

  t.is((await app.api.get(`${BASE}/${org.name}/members`, app.sysadmin)).body.count, 0);
  const readd = await app.api.post(`${BASE}/${org.name}/members`, { user: leaver.username, role: 'member' }, app.sysadmin);
  isProblem(t, readd, 422, 'validation_failed');
  t.deepEqual(fieldPaths(readd), ['user']);

  t.is((await app.api.post(`/api/v1/admin/users/${leaver.id}/restore`, undefined, app.sysadmin)).status, 200);
  const members = await app.api.get(`${BASE}/${org.name}/members`, app.sysadmin);
  t.like(members.body, { count: 1, results: [{ userId: leaver.id, role: 'editor' }] });
});

test('only an org admin or a sysadmin manages members: anonymous 401, editor and member 403', async (t) => {
  const { org, editor, member, outsider } = await orgWithRoles(t, 'manage-deny');
  const body = { user: outsider.id, role: 'member' };
  isProblem(t, await app.api.post(`${BASE}/${org.name}/members`, body, anonymous), 401, 'unauthenticated');
  for (const user of [editor, member, outsider]) {
    isProblem(t, await app.api.post(`${BASE}/${org.name}/members`, body, as(user)), 403, 'forbidden');
    isProblem(t, await app.api.post(`${BASE}/${org.name}/members`, { user: user.id, role: 'admin' }, as(user)), 403, 'forbidden');
  }
  isProblem(t, await app.api.delete(`${BASE}/${org.name}/members/${member.id}`, anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.delete(`${BASE}/${org.name}/members/${member.id}`, as(editor)), 403, 'forbidden');
  isProblem(t, await app.api.delete(`${BASE}/${org.name}/members/${editor.id}`, as(member)), 403, 'forbidden');
  t.is((await app.api.get(`${BASE}/${org.name}/members`, app.sysadmin)).body.count, 3, 'nothing changed');
});

test('DELETE /organizations/{nameOrId}/members/{userId} removes a member: 204, then 404 on repeat', async (t) => {
  const { org, admin, member } = await orgWithRoles(t, 'remove');
  t.is((await app.api.get(`${BASE}/${org.name}/members`, as(member))).status, 200);

  const removed = await app.api.delete(`${BASE}/${org.name}/members/${member.id}`, as(admin));
  t.is(removed.status, 204);
  isProblem(t, await app.api.delete(`${BASE}/${org.name}/members/${member.id}`, as(admin)), 404, 'not_found');
  isProblem(t, await app.api.delete(`${BASE}/${org.name}/members/not-a-user-id`, as(admin)), 404, 'not_found');

  isProblem(t, await app.api.get(`${BASE}/${org.name}/members`, as(member)), 403, 'forbidden');
  const mine = await app.api.get('/api/v1/users/me/organizations?limit=100', as(member));
  t.false(mine.body.results.some((o: { id: string }) => o.id === org.id));
  const list = await app.api.get(`${BASE}/${org.name}/members`, as(admin));
  t.false(list.body.results.some((m: { userId: string }) => m.userId === member.id));

  t.is((await app.api.delete(`${BASE}/${org.id}/members/${admin.id}`, app.sysadmin)).status, 204);
});

test('an org admin appointed by the sysadmin can update the org and add members; an editor cannot', async (t) => {
  const org = await createOrg(t, { name: unique('appoint') });
  const [alice, bob] = await Promise.all([newUser('alice'), newUser('bob')]);
  const carol = people.outsider;

  isProblem(t, await app.api.put(`${BASE}/${org.name}`, { name: org.name, title: 'By Alice' }, as(alice)), 403, 'forbidden');
  t.is((await app.api.post(`${BASE}/${org.name}/members`, { user: alice.username, role: 'admin' }, app.sysadmin)).status, 201);

  // Alice works with her session cookie, as a browser would.
  const put = await app.api.put(`${BASE}/${org.name}`, { name: org.name, title: 'By Alice' }, { cookie: alice.cookie });
  t.is(put.status, 200, put.text);
  t.is(put.body.title, 'By Alice');
  const addBob = await app.api.post(`${BASE}/${org.name}/members`, { user: bob.username, role: 'editor' }, { cookie: alice.cookie });
  t.is(addBob.status, 201);
  t.is(addBob.body.role, 'editor');

  isProblem(t, await app.api.put(`${BASE}/${org.name}`, { name: org.name, title: 'By Bob' }, as(bob)), 403, 'forbidden');
  isProblem(t, await app.api.post(`${BASE}/${org.name}/members`, { user: carol.id, role: 'member' }, as(bob)), 403, 'forbidden');
  isProblem(t, await app.api.post(`${BASE}/${org.name}/members`, { user: bob.id, role: 'admin' }, as(bob)), 403, 'forbidden');

  const promote = await app.api.post(`${BASE}/${org.name}/members`, { user: bob.id, role: 'admin' }, as(alice));
  t.is(promote.status, 200);
  const byBob = await app.api.put(`${BASE}/${org.name}`, { name: org.name, title: 'By Bob' }, as(bob));
  t.is(byBob.status, 200);

  // An org admin is no sysadmin: no new organizations, no restore, no purge.
  isProblem(t, await app.api.post(BASE, { name: unique('by-alice') }, as(alice)), 403, 'forbidden');
});

test('a cookie-authenticated write from another origin is refused', async (t) => {
  const org = await createOrg(t, { name: unique('csrf') });
  const alice = people.admin;
  t.is((await app.api.post(`${BASE}/${org.name}/members`, { user: alice.id, role: 'admin' }, app.sysadmin)).status, 201);
  const res = await app.api.put(
    `${BASE}/${org.name}`,
    { name: org.name, title: 'Forged' },
    { cookie: alice.cookie, origin: 'https://evil.example' },
  );
  isProblem(t, res, 403, 'forbidden');
  t.is((await app.api.get(`${BASE}/${org.name}`)).body.title, org.title);
});

// --- the caller's organizations ---------------------------------------------------------------------

test('GET /users/me/organizations lists the caller’s active organizations with the role in each', async (t) => {
  const user = await newUser('mine');
  const [one, two, other] = [
    await createOrg(t, { name: unique('mine-one') }),
    await createOrg(t, { name: unique('mine-two') }),
    await createOrg(t, { name: unique('not-mine') }),
  ];
  await app.api.post(`${BASE}/${one.name}/members`, { user: user.id, role: 'editor' }, app.sysadmin);
  await app.api.post(`${BASE}/${two.name}/members`, { user: user.id, role: 'admin' }, app.sysadmin);
  const category = await app.api.post('/api/v1/groups', { name: unique('mine-category') }, app.sysadmin);
  await app.api.post(`/api/v1/groups/${category.body.name}/members`, { user: user.id, role: 'admin' }, app.sysadmin);

  isProblem(t, await app.api.get('/api/v1/users/me/organizations', anonymous), 401, 'unauthenticated');
  const mine = await app.api.get('/api/v1/users/me/organizations', as(user));
  t.is(mine.status, 200);
  t.like(mine.body, { count: 2, offset: 0, limit: 20 });
  t.deepEqual(
    mine.body.results.map((o: { id: string; role: string }) => [o.id, o.role]),
    [
      [one.id, 'editor'],
      [two.id, 'admin'],
    ],
    'by name: mine-one-* before mine-two-*',
  );
  t.like(mine.body.results[0], { name: one.name, title: one.title, state: 'active' });
  t.false(mine.body.results.some((o: { id: string }) => o.id === other.id || o.id === category.body.id));

  const paged = await app.api.get('/api/v1/users/me/organizations?limit=1&offset=1', { cookie: user.cookie });
  t.like(paged.body, { count: 2, offset: 1, limit: 1 });
  t.is(paged.body.results.length, 1);
});
