import test, { type ExecutionContext } from 'ava';
import { fieldPaths, isProblem } from '../helpers/problem.ts';
import { startTestAppWithPeople, type People, type TestApp } from '../helpers/app.ts';
import { anonymous, as } from '../helpers/client.ts';
import { ISO, UUID } from '../helpers/formats.ts';
import { unique } from '../helpers/names.ts';
import {
  CATEGORIES as BASE,
  ORGANIZATIONS as ORGS,
  createGroup as createAnyGroup,
  groupWithMembers,
  LISTED_GROUP_FIELDS,
} from '../helpers/groups.ts';

let app: TestApp;
/** Users shared by the tests: each test gives them roles only in categories it creates itself. */
let people: People<'admin' | 'editor' | 'member' | 'outsider'>;
test.before(async () => {
  ({ app, people } = await startTestAppWithPeople('cat', ['admin', 'editor', 'member', 'outsider']));
});
test.after.always(async () => app?.stop());

/** Creates a category, or with `ORGS` an organization, as the sysadmin. */
const createGroup = (t: ExecutionContext, fields: Record<string, unknown>, base = BASE) => createAnyGroup(t, app, base, fields);

/** A category with one shared user per role, added by the sysadmin (by username). */
async function categoryWithRoles(t: ExecutionContext, prefix: string) {
  const category = await groupWithMembers(t, app, BASE, { name: unique(prefix) }, people, 'username');
  return { category, ...people };
}

// --- list -------------------------------------------------------------------------------------------

test('GET /groups lists active categories in the list envelope, filtered by q and paged by name', async (t) => {
  const marker = unique('catq');
  const names = [`${marker}-air`, `${marker}-soil`, `${marker}-water`];
  for (const name of names) await createGroup(t, { name });
  const byTitle = await createGroup(t, { name: unique('titled'), title: `About ${marker}` });
  // An organization matching q is not a category.
  await createGroup(t, { name: `${marker}-org` }, ORGS);

  const all = await app.api.get(BASE);
  t.is(all.status, 200);
  t.deepEqual(Object.keys(all.body).sort(), ['count', 'limit', 'offset', 'results']);
  t.like(all.body, { offset: 0, limit: 20 });

  const filtered = await app.api.get(`${BASE}?q=${marker.toUpperCase()}`);
  t.like(filtered.body, { count: 4, offset: 0, limit: 20 });
  t.deepEqual(
    filtered.body.results.map((g: { name: string }) => g.name),
    [...names, byTitle.name].sort(),
  );
  t.deepEqual(Object.keys(filtered.body.results[0]).sort(), LISTED_GROUP_FIELDS);

  const first = await app.api.get(`${BASE}?q=${marker}&limit=3`);
  const rest = await app.api.get(`${BASE}?q=${marker}&limit=3&offset=3`);
  t.like(first.body, { count: 4, offset: 0, limit: 3 });
  t.like(rest.body, { count: 4, offset: 3, limit: 3 });
  t.deepEqual(
    [...first.body.results, ...rest.body.results].map((g: { name: string }) => g.name),
    filtered.body.results.map((g: { name: string }) => g.name),
  );

  isProblem(t, await app.api.get(`${BASE}?limit=101`), 400, 'invalid_parameters');
  isProblem(t, await app.api.get(`${BASE}?offset=-1`), 400, 'invalid_parameters');
});

test('GET /groups?state=deleted is for sysadmins only', async (t) => {
  const kept = await createGroup(t, { name: unique('kept') });
  const gone = await createGroup(t, { name: unique('gone') });
  t.is((await app.api.delete(`${BASE}/${gone.name}`, app.sysadmin)).status, 204);

  isProblem(t, await app.api.get(`${BASE}?state=deleted`, anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.get(`${BASE}?state=deleted`, as(people.outsider)), 403, 'forbidden');

  const deleted = await app.api.get(`${BASE}?state=deleted&limit=100`, app.sysadmin);
  t.is(deleted.status, 200);
  const names = deleted.body.results.map((g: { name: string }) => g.name);
  t.true(names.includes(gone.name));
  t.false(names.includes(kept.name));
  t.false((await app.api.get(`${BASE}?limit=100`, app.sysadmin)).body.results.some((g: { id: string }) => g.id === gone.id));
});

// --- create -----------------------------------------------------------------------------------------

test('POST /groups is for sysadmins (anonymous 401, user 403) and creates a category with the title defaulting to the name', async (t) => {
  const name = unique('created');
  isProblem(t, await app.api.post(BASE, { name }, anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.post(BASE, { name }, as(people.outsider)), 403, 'forbidden');
  isProblem(t, await app.api.get(`${BASE}/${name}`), 404, 'not_found');

  const res = await app.api.post(BASE, { name }, app.sysadmin);
  t.is(res.status, 201);
  t.regex(res.body.id, UUID);
  t.like(res.body, { name, title: name, description: null, imageUrl: null, state: 'active' });
  t.regex(res.body.createdAt, ISO);

  const full = { name: unique('full'), title: 'Climate', description: 'Weather and climate data', imageUrl: 'http://example.org/c.svg' };
  const created = await app.api.post(BASE, full, app.sysadmin);
  t.is(created.status, 201);
  t.like(created.body, full);
});

test('POST /groups with a taken name is 409 on name, even when the category is deleted', async (t) => {
  const category = await createGroup(t, { name: unique('dup') });
  const again = await app.api.post(BASE, { name: category.name }, app.sysadmin);
  isProblem(t, again, 409, 'conflict');
  t.is(again.body.errors[0].path, 'name');

  t.is((await app.api.delete(`${BASE}/${category.name}`, app.sysadmin)).status, 204);
  const whileDeleted = await app.api.post(BASE, { name: category.name }, app.sysadmin);
  isProblem(t, whileDeleted, 409, 'conflict');

  const org = await app.api.post(ORGS, { name: category.name }, app.sysadmin);
  t.is(org.status, 201, 'an organization may share the name of a category');
});

test('POST /groups validates the body: 422 with one path per bad field', async (t) => {
  const bad = await app.api.post(BASE, { name: 'Spaces Here', description: 42, imageUrl: 'not a url', packageCount: 3 }, app.sysadmin);
  isProblem(t, bad, 422, 'validation_failed');
  t.deepEqual(fieldPaths(bad), ['description', 'imageUrl', 'name', 'packageCount']);

  const uuidName = await app.api.post(BASE, { name: '3f2b8c1e-0a4d-4e5f-9b6c-7d8e9f0a1b2c' }, app.sysadmin);
  isProblem(t, uuidName, 422, 'validation_failed');
  t.deepEqual(fieldPaths(uuidName), ['name']);

  const notAnObject = await app.api.post(BASE, [], app.sysadmin);
  isProblem(t, notAnObject, 422, 'validation_failed');
});

// --- detail -----------------------------------------------------------------------------------------

test('GET /groups/{nameOrId} finds by name and by id; unknown ones and organizations are 404', async (t) => {
  const category = await createGroup(t, { name: unique('detail'), description: 'Detail' });
  t.deepEqual((await app.api.get(`${BASE}/${category.name}`)).body, category);
  t.deepEqual((await app.api.get(`${BASE}/${category.id}`)).body, category);

  isProblem(t, await app.api.get(`${BASE}/no-such-category`), 404, 'not_found');
  isProblem(t, await app.api.get(`${BASE}/00000000-0000-4000-8000-000000000000`), 404, 'not_found');
  const org = await createGroup(t, { name: unique('an-org') }, ORGS);
  isProblem(t, await app.api.get(`${BASE}/${org.name}`), 404, 'not_found');
  isProblem(t, await app.api.get(`${BASE}/${org.id}`), 404, 'not_found');
});

// --- update -----------------------------------------------------------------------------------------

test('PUT /groups/{nameOrId} is a full replacement by a category admin; editor and member 403, anonymous 401', async (t) => {
  const { category, admin, editor, member, outsider } = await categoryWithRoles(t, 'put');
  const full = { name: category.name, title: 'Full', description: 'Text', imageUrl: 'https://example.org/x.png' };
  t.is((await app.api.put(`${BASE}/${category.name}`, full, as(admin))).status, 200);

  isProblem(t, await app.api.put(`${BASE}/${category.name}`, { name: category.name }, anonymous), 401, 'unauthenticated');
  for (const user of [editor, member, outsider]) {
    isProblem(t, await app.api.put(`${BASE}/${category.name}`, { name: category.name }, as(user)), 403, 'forbidden');
  }

  const replaced = await app.api.put(`${BASE}/${category.id}`, { name: category.name, title: 'Only a title' }, as(admin));
  t.is(replaced.status, 200);
  t.like(replaced.body, { id: category.id, title: 'Only a title', description: null, imageUrl: null });
  t.deepEqual((await app.api.get(`${BASE}/${category.name}`)).body, replaced.body);
});

test('PUT /groups/{nameOrId} to a taken name is 409 on name; a rename frees the old name', async (t) => {
  const taken = await createGroup(t, { name: unique('taken') });
  const category = await createGroup(t, { name: unique('mover') });
  const clash = await app.api.put(`${BASE}/${category.name}`, { name: taken.name }, app.sysadmin);
  isProblem(t, clash, 409, 'conflict');
  t.is(clash.body.errors[0].path, 'name');

  const newName = unique('moved');
  const moved = await app.api.put(`${BASE}/${category.name}`, { name: newName }, app.sysadmin);
  t.like(moved.body, { id: category.id, name: newName, title: newName });
  isProblem(t, await app.api.get(`${BASE}/${category.name}`), 404, 'not_found');
  t.is((await app.api.post(BASE, { name: category.name }, app.sysadmin)).status, 201);
});

// --- delete, restore, purge -------------------------------------------------------------------------

test('DELETE /groups/{nameOrId} soft-deletes (category admin): hidden from all but a sysadmin', async (t) => {
  const { category, admin, editor, member } = await categoryWithRoles(t, 'del');
  isProblem(t, await app.api.delete(`${BASE}/${category.name}`, anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.delete(`${BASE}/${category.name}`, as(editor)), 403, 'forbidden');

  const del = await app.api.delete(`${BASE}/${category.name}`, as(admin));
  t.is(del.status, 204);
  for (const auth of [anonymous, as(admin), as(member)]) {
    isProblem(t, await app.api.get(`${BASE}/${category.name}`, auth), 404, 'not_found');
  }
  t.like((await app.api.get(`${BASE}/${category.id}`, app.sysadmin)).body, { id: category.id, state: 'deleted' });
  t.is((await app.api.get(`${BASE}?q=${category.name}`)).body.count, 0);
  isProblem(t, await app.api.get(`${BASE}/${category.name}/members`, as(member)), 404, 'not_found');
  t.is((await app.api.get(`${BASE}/${category.name}/members`, app.sysadmin)).body.count, 3);
});

test('POST /groups/{nameOrId}/restore is for sysadmins only', async (t) => {
  const { category, admin, member } = await categoryWithRoles(t, 'restore');
  t.is((await app.api.delete(`${BASE}/${category.name}`, as(admin))).status, 204);

  isProblem(t, await app.api.post(`${BASE}/${category.name}/restore`, undefined, anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.post(`${BASE}/${category.name}/restore`, undefined, as(admin)), 403, 'forbidden');

  const restored = await app.api.post(`${BASE}/${category.name}/restore`, undefined, app.sysadmin);
  t.is(restored.status, 200);
  t.like(restored.body, { id: category.id, state: 'active' });
  t.like((await app.api.get(`${BASE}/${category.name}`)).body, { state: 'active' });
  t.is((await app.api.get(`${BASE}/${category.name}/members`, as(member))).status, 200, 'memberships survive');
});

test('POST /groups/{nameOrId}/purge needs a soft delete first (409) and a sysadmin, then removes it at once (204)', async (t) => {
  const { category, admin } = await categoryWithRoles(t, 'purge');
  isProblem(t, await app.api.post(`${BASE}/${category.name}/purge`, undefined, app.sysadmin), 409, 'conflict');
  t.is((await app.api.delete(`${BASE}/${category.name}`, as(admin))).status, 204);
  isProblem(t, await app.api.post(`${BASE}/${category.name}/purge`, undefined, anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.post(`${BASE}/${category.name}/purge`, undefined, as(admin)), 403, 'forbidden');

  const purged = await app.api.post(`${BASE}/${category.name}/purge`, undefined, app.sysadmin);
  t.is(purged.status, 204);
  t.is(purged.text, '');
  isProblem(t, await app.api.get(`${BASE}/${category.id}`, app.sysadmin), 404, 'not_found');
  isProblem(t, await app.api.post(`${BASE}/${category.id}/purge`, undefined, app.sysadmin), 404, 'not_found');
  isProblem(t, await app.api.post(`${BASE}/${category.id}/restore`, undefined, app.sysadmin), 404, 'not_found');
  t.is((await app.api.get(`${BASE}?state=deleted&q=${category.name}`, app.sysadmin)).body.count, 0);

  const rows = await app.almanac.services.orm.em
    .fork()
    .getConnection()
    .execute<{ n: string }[]>('select count(*) as n from memberships where group_id = ?', [category.id]);
  t.is(Number(rows[0].n), 0, 'its memberships went with it');
  t.not((await createGroup(t, { name: category.name })).id, category.id, 'the name is free again');
});

test('purging a category leaves an organization of the same name alone', async (t) => {
  const name = unique('twin');
  const category = await createGroup(t, { name });
  const org = await createGroup(t, { name }, ORGS);
  t.is((await app.api.delete(`${BASE}/${name}`, app.sysadmin)).status, 204);
  t.is((await app.api.post(`${BASE}/${name}/purge`, undefined, app.sysadmin)).status, 204);
  isProblem(t, await app.api.get(`${BASE}/${category.id}`, app.sysadmin), 404, 'not_found');
  t.like((await app.api.get(`${ORGS}/${name}`)).body, { id: org.id, state: 'active' });
});

// --- members ----------------------------------------------------------------------------------------

test('GET /groups/{nameOrId}/members needs membership: anonymous 401, outsider 403, member and sysadmin 200', async (t) => {
  const { category, admin, editor, member, outsider } = await categoryWithRoles(t, 'members');
  isProblem(t, await app.api.get(`${BASE}/${category.name}/members`, anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.get(`${BASE}/${category.name}/members`, as(outsider)), 403, 'forbidden');

  const expected = [
    { userId: admin.id, username: admin.username, displayName: null, role: 'admin' },
    { userId: editor.id, username: editor.username, displayName: null, role: 'editor' },
    { userId: member.id, username: member.username, displayName: null, role: 'member' },
  ].sort((a, b) => a.username.localeCompare(b.username));
  for (const auth of [as(member), app.sysadmin]) {
    const res = await app.api.get(`${BASE}/${category.name}/members`, auth);
    t.is(res.status, 200);
    t.deepEqual(res.body, { count: 3, offset: 0, limit: 20, results: expected });
  }
});

test('POST /groups/{nameOrId}/members upserts (201 added, 200 changed) and validates user and role', async (t) => {
  const { category, admin, outsider } = await categoryWithRoles(t, 'upsert');
  const added = await app.api.post(`${BASE}/${category.name}/members`, { user: outsider.username, role: 'member' }, as(admin));
  t.is(added.status, 201);
  t.deepEqual(added.body, { userId: outsider.id, username: outsider.username, displayName: null, role: 'member' });
  const changed = await app.api.post(`${BASE}/${category.id}/members`, { user: outsider.id, role: 'editor' }, as(admin));
  t.is(changed.status, 200);
  t.is(changed.body.role, 'editor');
  t.is((await app.api.get(`${BASE}/${category.name}/members`, as(outsider))).body.count, 4);

  const unknown = await app.api.post(`${BASE}/${category.name}/members`, { user: 'ghost-user', role: 'member' }, as(admin));
  isProblem(t, unknown, 422, 'validation_failed');
  t.deepEqual(fieldPaths(unknown), ['user']);
  const badRole = await app.api.post(`${BASE}/${category.name}/members`, { user: outsider.id, role: 'Admin' }, as(admin));
  isProblem(t, badRole, 422, 'validation_failed');
  t.deepEqual(fieldPaths(badRole), ['role']);
});

test('only a category admin or a sysadmin manages members; DELETE is 204, then 404', async (t) => {
  const { category, admin, editor, member, outsider } = await categoryWithRoles(t, 'manage');
  const body = { user: outsider.id, role: 'member' };
  isProblem(t, await app.api.post(`${BASE}/${category.name}/members`, body, anonymous), 401, 'unauthenticated');
  isProblem(t, await app.api.post(`${BASE}/${category.name}/members`, body, as(editor)), 403, 'forbidden');
  isProblem(t, await app.api.post(`${BASE}/${category.name}/members`, body, as(member)), 403, 'forbidden');
  isProblem(t, await app.api.delete(`${BASE}/${category.name}/members/${member.id}`, as(editor)), 403, 'forbidden');
  isProblem(t, await app.api.delete(`${BASE}/${category.name}/members/${member.id}`, anonymous), 401, 'unauthenticated');

  t.is((await app.api.delete(`${BASE}/${category.name}/members/${member.id}`, as(admin))).status, 204);
  isProblem(t, await app.api.delete(`${BASE}/${category.name}/members/${member.id}`, as(admin)), 404, 'not_found');
  isProblem(t, await app.api.get(`${BASE}/${category.name}/members`, as(member)), 403, 'forbidden');
  t.is((await app.api.delete(`${BASE}/${category.id}/members/${editor.id}`, app.sysadmin)).status, 204);
  t.is((await app.api.get(`${BASE}/${category.name}/members`, as(admin))).body.count, 1);
});

test('a category admin manages the category but not an organization they are not in, even of the same name', async (t) => {
  const name = unique('same-name');
  const category = await createGroup(t, { name });
  const org = await createGroup(t, { name, title: 'The organization' }, ORGS);
  const curator = await app.api.newUser(unique('curator'));
  t.is((await app.api.post(`${BASE}/${name}/members`, { user: curator.id, role: 'admin' }, app.sysadmin)).status, 201);

  const put = await app.api.put(`${BASE}/${name}`, { name, title: 'Curated' }, { cookie: curator.cookie });
  t.is(put.status, 200, put.text);
  t.is(put.body.id, category.id);
  t.is((await app.api.post(`${BASE}/${name}/members`, { user: people.outsider.id, role: 'member' }, as(curator))).status, 201);

  isProblem(t, await app.api.put(`${ORGS}/${name}`, { name, title: 'Taken over' }, as(curator)), 403, 'forbidden');
  isProblem(t, await app.api.post(`${ORGS}/${name}/members`, { user: curator.id, role: 'admin' }, as(curator)), 403, 'forbidden');
  isProblem(t, await app.api.get(`${ORGS}/${name}/members`, as(curator)), 403, 'forbidden');
  isProblem(t, await app.api.delete(`${ORGS}/${name}`, as(curator)), 403, 'forbidden');
  t.like((await app.api.get(`${ORGS}/${name}`)).body, { id: org.id, title: 'The organization', state: 'active' });

  const mine = await app.api.get('/api/v1/users/me/organizations', as(curator));
  t.like(mine.body, { count: 0, results: [] }, 'a category is not one of the user’s organizations');

  t.is((await app.api.delete(`${BASE}/${name}`, as(curator))).status, 204);
  isProblem(t, await app.api.post(`${BASE}/${name}/restore`, undefined, as(curator)), 403, 'forbidden');
});
