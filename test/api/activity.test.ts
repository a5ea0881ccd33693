import test, { type ExecutionContext } from 'ava';
import { actAs } from '../../src/domain/activity/actor-scope.ts';
import { applyHarvestPage } from '../../src/domain/harvest/apply.ts';
import { startTestAppWithPeople, type People, type TestApp } from '../helpers/app.ts';
import { ckanGet, ckanPost, resultOf } from '../helpers/ckan.ts';
import { anonymous, as, type Auth } from '../helpers/client.ts';
import { CATEGORIES, createGroup, groupWithMembers, ORGANIZATIONS } from '../helpers/groups.ts';
import { domainContext, harvestRecord, makeRun, makeSource } from '../helpers/harvest-domain.ts';
import { unique } from '../helpers/names.ts';

/**
 * History (issue 30 §1) over HTTP: each kind of change leaves its activity with its diff, a rolled-back
 * change leaves none, `?version=` gives the record as it was, and history is shown through time only to
 * those who could see each period.
 */

let app: TestApp;
let people: People<'admin' | 'editor' | 'member' | 'outsider'>;
test.before(async () => {
  ({ app, people } = await startTestAppWithPeople('act', ['admin', 'editor', 'member', 'outsider']));
});
test.after.always(async () => app?.stop());

const PKG = '/api/v1/packages';
const orgWithRoles = (t: ExecutionContext) => groupWithMembers(t, app, ORGANIZATIONS, { name: unique('org') }, people);

interface Activity {
  id: string;
  action: string;
  userId: string | null;
  harvestRunId: string | null;
  changes?: Array<{ path: string; before: unknown; after: unknown }>;
}

async function activities(t: ExecutionContext, nameOrId: string, auth: Auth = app.sysadmin): Promise<Activity[]> {
  const res = await app.api.get(`${PKG}/${nameOrId}/activity?limit=100`, auth);
  t.is(res.status, 200, res.text);
  return res.body.results;
}

const changedPaths = (a: Activity) => (a.changes ?? []).map((c) => c.path).sort();

test('each change to a dataset is one activity, newest first, with who made it and what changed', async (t) => {
  const org = await orgWithRoles(t);
  const editor = as(people.editor);
  const created = await app.api.post(PKG, { name: unique('ds'), title: 'First title', ownerOrg: org.name, licenseId: 'cc-by-4.0' }, editor);
  t.is(created.status, 201, created.text);
  const id = created.body.id;
  t.is(
    (
      await app.api.put(
        `${PKG}/${id}`,
        { name: created.body.name, title: 'Second title', ownerOrg: org.name, licenseId: 'cc-by-4.0' },
        editor,
      )
    ).status,
    200,
  );
  const resource = await app.api.post(`${PKG}/${id}/resources`, { name: 'Data', url: 'https://files.example/a.csv' }, editor);
  t.is(resource.status, 201, resource.text);
  t.is((await app.api.delete(`${PKG}/${id}`, editor)).status, 204);
  t.is((await app.api.post(`${PKG}/${id}/restore`, {}, app.sysadmin)).status, 200);

  const history = await activities(t, id);
  t.deepEqual(
    history.map((a) => a.action),
    ['restored', 'deleted', 'changed', 'changed', 'created'],
  );
  t.true(history.slice(1).every((a) => a.userId === people.editor.id));
  t.is(history[0].userId, (await app.api.get('/api/v1/users/me', app.sysadmin)).body.id);
  t.deepEqual(history[3].changes, [{ path: 'title', before: 'First title', after: 'Second title' }]);
  t.deepEqual(changedPaths(history[2]), [`resources.${resource.body.id}`]);
  t.like(
    history[1].changes!.find((c) => c.path === 'state'),
    { before: 'active', after: 'deleted' },
  );

  // Each activity alone, and the record as that change left it.
  const one = await app.api.get(`/api/v1/activity/${history[3].id}`, anonymous);
  t.is(one.status, 200, one.text);
  t.deepEqual(one.body.changes, history[3].changes);
  const first = await app.api.get(`${PKG}/${id}?version=${history[4].id}`, anonymous);
  t.is(first.status, 200, first.text);
  t.like(first.body, { id, title: 'First title', resources: [] });
  const withResource = await app.api.get(`${PKG}/${created.body.name}?version=${history[2].id}`, anonymous);
  t.is(withResource.body.resources[0].url, 'https://files.example/a.csv');
  t.is((await app.api.get(`${PKG}/${id}?version=00000000-0000-4000-8000-000000000000`, anonymous)).status, 404);

  // A resource deleted: one statement, still named for its editor.
  t.is((await app.api.delete(`/api/v1/resources/${resource.body.id}`, editor)).status, 204);
  const [removal] = await activities(t, id);
  t.like(removal, { action: 'changed', userId: people.editor.id });
  t.deepEqual(changedPaths(removal!), [`resources.${resource.body.id}`]);
});

test('a change that rolled back leaves no activity; a write that changes nothing adds none', async (t) => {
  const org = await orgWithRoles(t);
  const editor = as(people.editor);
  const name = unique('draft');
  const draft = await ckanPost(app.api, 'package_create', { name, state: 'draft', title: 'Draft title' }, editor);
  t.is(draft.status, 200, draft.text);
  const before = await activities(t, name);
  t.deepEqual(
    before.map((a) => a.action),
    ['created'],
  );
  // Publishing without a license is refused after the title and the resource were written: all of it rolls back.
  const refused = await ckanPost(
    app.api,
    'package_update',
    {
      id: draft.body.result.id,
      name,
      title: 'New title',
      owner_org: org.name,
      state: 'active',
      resources: [{ url: 'https://files.example/r.csv' }],
    },
    editor,
  );
  t.is(refused.status, 409, refused.text);
  t.deepEqual(await activities(t, name), before);
  // The same record again: nothing changed, nothing recorded.
  t.is((await app.api.put(`${PKG}/${name}`, { title: 'Draft title' }, editor)).status, 200);
  t.deepEqual(await activities(t, name), before);
});

test('history through time: a draft period and a private period are shown only to who could see them then', async (t) => {
  const org = await orgWithRoles(t);
  const editor = as(people.editor);
  const draft = await app.api.post(
    `${PKG}/drafts`,
    { name: unique('tt'), title: 'Secret draft title', ownerOrg: org.name, licenseId: 'cc-by-4.0' },
    editor,
  );
  t.is(draft.status, 201, draft.text);
  const id = draft.body.id;
  t.is((await app.api.put(`${PKG}/${id}`, { title: 'Private title', private: true }, editor)).status, 200);
  t.is((await app.api.post(`${PKG}/${id}/publish`, {}, editor)).status, 200);
  t.is(
    (
      await app.api.put(
        `${PKG}/${id}`,
        { name: draft.body.name, title: 'Public title', ownerOrg: org.name, licenseId: 'cc-by-4.0', private: false },
        editor,
      )
    ).status,
    200,
  );

  const all = await activities(t, id);
  t.deepEqual(
    all.map((a) => a.action),
    ['changed', 'published', 'changed', 'created'],
  );
  const seen = async (auth: Auth) => {
    const res = await app.api.get(`${PKG}/${id}/activity`, auth);
    return res.status === 200 ? (res.body.results as Activity[]).map((a) => a.action) : res.status;
  };
  // Editors and sysadmins: everything; members: from the publish (private, in their organization) on;
  // the public and outsiders: from going public only, as if the dataset was created then.
  t.deepEqual(await seen(app.sysadmin), ['changed', 'published', 'changed', 'created']);
  t.deepEqual(await seen(as(people.editor)), ['changed', 'published', 'changed', 'created']);
  t.deepEqual(await seen(as(people.member)), ['changed', 'published']);
  t.deepEqual(await seen(as(people.outsider)), ['changed']);
  t.deepEqual(await seen(anonymous), ['changed']);

  const [publicChange] = (await app.api.get(`${PKG}/${id}/activity`, anonymous)).body.results as Activity[];
  // Nothing of the earlier periods leaks through the first visible change's `before`.
  t.false(JSON.stringify(publicChange.changes).includes('Private title'));
  t.false(JSON.stringify(publicChange.changes).includes('Secret draft title'));
  t.like(
    publicChange.changes!.find((c) => c.path === 'title'),
    { before: null, after: 'Public title' },
  );
  // Single activities and versions follow the same rule.
  t.is((await app.api.get(`/api/v1/activity/${all[1].id}`, anonymous)).status, 404);
  t.is((await app.api.get(`/api/v1/activity/${all[1].id}`, as(people.member))).status, 200);
  t.is((await app.api.get(`${PKG}/${id}?version=${all[3].id}`, anonymous)).status, 404);
  t.is((await app.api.get(`${PKG}/${id}?version=${all[3].id}`, as(people.member))).status, 404);
  t.is((await app.api.get(`${PKG}/${id}?version=${all[3].id}`, as(people.editor))).body.title, 'Secret draft title');
  // The public listings agree.
  const recent = (await app.api.get('/api/v1/activity?limit=100', anonymous)).body.results as Activity[];
  t.deepEqual(
    recent.filter((a) => all.some((b) => b.id === a.id)).map((a) => a.action),
    ['changed'],
  );
  const orgFeed = (await app.api.get(`${ORGANIZATIONS}/${org.name}/activity?limit=100`, anonymous)).body.results as Activity[];
  t.deepEqual(
    orgFeed.filter((a) => all.some((b) => b.id === a.id)).map((a) => a.action),
    ['changed'],
  );
  const userFeed = (await app.api.get(`/api/v1/users/${people.editor.id}/activity?limit=100`, anonymous)).body.results as Activity[];
  t.deepEqual(
    userFeed.filter((a) => all.some((b) => b.id === a.id)).map((a) => a.action),
    ['changed'],
  );
});

test('a harvest run, an organization change and a purge are activities too', async (t) => {
  const org = await orgWithRoles(t);
  // Harvest: the run is who changed the dataset.
  const source = await makeSource(app, { name: unique('src'), organization: org.name });
  const run = await makeRun(app, source);
  const remoteId = unique('harvested');
  const ctx = domainContext(app);
  actAs(ctx.em, { harvestRunId: run.id });
  await applyHarvestPage(ctx, source, run, [{ kind: 'record', record: harvestRecord(remoteId) }]);
  const [harvested] = await activities(t, remoteId);
  t.like(harvested, { action: 'created', userId: null, harvestRunId: run.id });

  // Organization: its own record's changes.
  const renamed = await app.api.put(`${ORGANIZATIONS}/${org.name}`, { name: org.name, title: 'A new title' }, as(people.admin));
  t.is(renamed.status, 200, renamed.text);
  const orgFeed = (await app.api.get(`${ORGANIZATIONS}/${org.name}/activity?limit=100`, anonymous)).body.results as Activity[];
  const orgChange = orgFeed.find((a) => (a as unknown as { objectType: string }).objectType === 'organization' && a.action === 'changed');
  t.truthy(orgChange);
  const shown = await app.api.get(`/api/v1/activity/${orgChange!.id}`, anonymous);
  t.like(
    shown.body.changes.find((c: { path: string }) => c.path === 'title'),
    { after: 'A new title' },
  );

  // Purge: the last activity of a dataset that is gone, for sysadmins only.
  const created = await app.api.post(PKG, { name: unique('gone'), ownerOrg: org.name, licenseId: 'cc-by-4.0' }, as(people.editor));
  const id = created.body.id;
  t.is((await app.api.delete(`${PKG}/${id}`, as(people.editor))).status, 204);
  t.true([202, 204].includes((await app.api.post(`${PKG}/${id}/purge`, {}, as(people.admin))).status));
  let purged: Activity | undefined;
  for (let i = 0; i < 100 && !purged; i++) {
    const feed = (await app.api.get(`${ORGANIZATIONS}/${org.name}/activity?limit=100`, app.sysadmin)).body.results as Activity[];
    purged = feed.find((a) => a.action === 'purged' && (a as unknown as { objectId: string }).objectId === id);
    if (!purged) await new Promise((r) => setTimeout(r, 100));
  }
  t.truthy(purged, 'the purge is recorded');
  t.is(purged!.userId, people.admin.id, 'by the admin who asked for it, though a workflow made it');
  t.is(
    (await app.api.get(`/api/v1/activity/${purged!.id}`, as(people.admin))).status,
    404,
    'a purged dataset is no one’s but a sysadmin’s to see',
  );
  t.is((await app.api.get(`/api/v1/activity/${purged!.id}`, app.sysadmin)).status, 200);
});

test('the CKAN activity actions and the web page follow the same rule through time', async (t) => {
  const org = await orgWithRoles(t);
  const editor = as(people.editor);
  const category = await createGroup(t, app, CATEGORIES, { name: unique('cat') });
  const name = unique('ck');
  const created = await app.api.post(
    PKG,
    { name, title: 'Private one', ownerOrg: org.name, licenseId: 'cc-by-4.0', private: true },
    editor,
  );
  t.is(created.status, 201, created.text);
  const body = { name, title: 'Public one', ownerOrg: org.name, licenseId: 'cc-by-4.0', private: false };
  t.is((await app.api.put(`${PKG}/${name}`, body, editor)).status, 200);
  const [publicChange, privateCreate] = await activities(t, name);

  const ckan = async (action: string, params: Record<string, string>, auth: Auth) => {
    const reply = await ckanGet(app.api, action, params, auth);
    return reply.status === 200 ? resultOf(reply) : reply.status;
  };
  const ids = (list: Array<{ id: string }> | number) => (typeof list === 'number' ? list : list.map((a) => a.id));
  const ours = (list: Array<{ id: string }>) => list.filter((a) => a.id === publicChange.id || a.id === privateCreate.id).map((a) => a.id);
  for (const [auth, expected] of [
    [anonymous, [publicChange.id]],
    [as(people.outsider), [publicChange.id]],
    [as(people.member), [publicChange.id, privateCreate.id]],
    [editor, [publicChange.id, privateCreate.id]],
    [app.sysadmin, [publicChange.id, privateCreate.id]],
  ] as const) {
    t.deepEqual(ids(await ckan('package_activity_list', { id: name }, auth)), expected);
    t.deepEqual(ours(await ckan('organization_activity_list', { id: org.name }, auth)), expected);
    t.deepEqual(ours(await ckan('recently_changed_packages_activity_list', { limit: '100' }, auth)), expected);
    const hidden = expected.length === 1;
    t.is(await ckan('activity_show', { id: privateCreate.id }, auth).then((r) => (typeof r === 'number' ? r : 200)), hidden ? 404 : 200);
    t.is(
      await ckan('activity_data_show', { id: privateCreate.id }, auth).then((r) => (typeof r === 'number' ? r : 200)),
      hidden ? 404 : 200,
    );
    const page = await app.api.get(`/dataset/${name}/history`, { ...auth, headers: { Accept: 'text/html' } });
    t.is(page.status, 200);
    t.is(page.text.includes('Private one'), !hidden, 'the private title shows in the page’s diff only to those who could see it');
  }
  const shown = await ckan('activity_show', { id: publicChange.id }, anonymous);
  t.like(shown, {
    activity_type: 'changed package',
    object_id: created.body.id,
    user_id: people.editor.id,
    data: { package: { title: 'Public one' } },
  });
  // The category's own history: created by the sysadmin, as its record.
  const categoryFeed = (await app.api.get(`${CATEGORIES}/${category.name}/activity`, anonymous)).body.results as Activity[];
  t.deepEqual(
    categoryFeed.map((a) => a.action),
    ['created'],
  );
  t.deepEqual(ids(await ckan('group_activity_list', { id: category.name }, anonymous)), [categoryFeed[0].id]);
});

test('history through time, in other orders: public → private → public, public → deleted → restored, private → deleted', async (t) => {
  const org = await orgWithRoles(t);
  const editor = as(people.editor);
  const make = async (fields: Record<string, unknown>) => {
    const res = await app.api.post(PKG, { name: unique('ord'), ownerOrg: org.name, licenseId: 'cc-by-4.0', ...fields }, editor);
    t.is(res.status, 201, res.text);
    return res.body as { id: string; name: string };
  };
  const put = async (d: { name: string }, fields: Record<string, unknown>) =>
    t.is(
      (await app.api.put(`${PKG}/${d.name}`, { name: d.name, ownerOrg: org.name, licenseId: 'cc-by-4.0', ...fields }, editor)).status,
      200,
    );
  const seen = async (d: { id: string }, auth: Auth) => {
    const res = await app.api.get(`${PKG}/${d.id}/activity`, auth);
    return res.status === 200
      ? (res.body.results as Activity[]).map((a) => `${a.action}:${(a.changes ?? []).map((c) => c.path).join('+')}`)
      : res.status;
  };

  const flip = await make({ title: 'one' });
  await put(flip, { title: 'hidden', private: true });
  await put(flip, { title: 'two', private: false });
  t.deepEqual(((await seen(flip, editor)) as string[]).slice(0, 2), ['changed:title+private', 'changed:title+private']);
  const publicView = (await seen(flip, anonymous)) as string[];
  t.is(publicView.length, 2, 'the private spell is not shown to the public');
  t.is(publicView[0], 'changed:title', 'and the public diff skips it: title one → two, privacy unchanged for them');
  t.deepEqual(await seen(flip, as(people.outsider)), publicView);
  t.is(((await seen(flip, as(people.member))) as string[]).length, 3);

  const restored = await make({ title: 'kept' });
  t.is((await app.api.delete(`${PKG}/${restored.id}`, editor)).status, 204);
  t.is((await app.api.post(`${PKG}/${restored.id}/restore`, {}, app.sysadmin)).status, 200);
  t.deepEqual(
    ((await seen(restored, anonymous)) as string[]).map((a) => a.split(':')[0]),
    ['restored', 'created'],
  );
  t.deepEqual(
    ((await seen(restored, editor)) as string[]).map((a) => a.split(':')[0]),
    ['restored', 'deleted', 'created'],
  );

  const gone = await make({ title: 'secret', private: true });
  t.is((await app.api.delete(`${PKG}/${gone.id}`, editor)).status, 204);
  t.is(await seen(gone, anonymous), 404);
  t.is(await seen(gone, as(people.member)), 404, 'a deleted dataset is its editors’');
  t.is(((await seen(gone, editor)) as string[]).length, 2);
});

test('membership changes are activities of their organization, by whom, shown only to those who may see its members', async (t) => {
  const org = await orgWithRoles(t);
  const admin = as(people.admin);
  const feedOf = async (auth: Auth) =>
    (
      (await app.api.get(`${ORGANIZATIONS}/${org.name}/activity?limit=100`, auth)).body.results as Array<Activity & { objectType: string }>
    ).filter((a) => a.objectType === 'organization');
  const before = (await feedOf(app.sysadmin)).length;
  const [publicBefore, outsiderBefore] = [(await feedOf(anonymous)).length, (await feedOf(as(people.outsider))).length];
  t.is((await app.api.post(`${ORGANIZATIONS}/${org.name}/members`, { user: people.outsider.id, role: 'member' }, admin)).status, 201);
  t.is(
    (await app.api.post(`${ORGANIZATIONS}/${org.name}/members`, { user: people.outsider.id, role: 'editor' }, admin)).status,
    200,
    'a role changed',
  );
  t.is((await app.api.delete(`${ORGANIZATIONS}/${org.name}/members/${people.outsider.id}`, admin)).status, 204);

  const [removed, promoted, added] = await feedOf(as(people.member));
  t.is((await feedOf(app.sysadmin)).length, before + 3, 'one activity per change');
  for (const [activity, change] of [
    [added, { before: null, after: 'member' }],
    [promoted, { before: 'member', after: 'editor' }],
    [removed, { before: 'editor', after: null }],
  ] as const) {
    t.like(activity, { action: 'changed', userId: people.admin.id });
    const shown = await app.api.get(`/api/v1/activity/${activity!.id}`, as(people.member));
    t.is(shown.status, 200, shown.text);
    t.deepEqual(shown.body.changes, [{ path: `members.${people.outsider.id}`, ...change }]);
    // Who belongs to an organization is for its members: to anyone else these changes are not there.
    t.is((await app.api.get(`/api/v1/activity/${activity!.id}`, anonymous)).status, 404);
  }
  t.is((await feedOf(anonymous)).length, publicBefore, 'anonymous readers see the organization’s other changes only');
  t.is((await feedOf(as(people.outsider))).length, outsiderBefore);

  // A change of the organization's own fields stays public, without its members in the diff.
  t.is((await app.api.put(`${ORGANIZATIONS}/${org.name}`, { name: org.name, title: 'Retitled' }, admin)).status, 200);
  const [retitled] = await feedOf(anonymous);
  const publicView = await app.api.get(`/api/v1/activity/${retitled!.id}`, anonymous);
  t.deepEqual(
    publicView.body.changes.map((c: { path: string }) => c.path),
    ['title'],
  );
});
