import test, { type ExecutionContext } from 'ava';
import { startTestAppWithPeople, type People, type TestApp } from '../helpers/app.ts';
import { anonymous, as, type Auth, type Reply } from '../helpers/client.ts';
import { ckanGet, ckanPost, resultOf } from '../helpers/ckan.ts';
import { UUID } from '../helpers/formats.ts';
import { CATEGORIES, createGroup, groupWithMembers, ORGANIZATIONS } from '../helpers/groups.ts';
import { unique } from '../helpers/names.ts';

/**
 * CKAN's write actions on organizations, groups (Almanac categories) and their members, user_show and
 * organization_list_for_user (issue 29 §1), over HTTP: each under REST's rule, tried by every kind of
 * caller; refusals in CKAN's shapes (Authorization Error 403, Not Found Error 404, Validation Error 409
 * naming CKAN's parameters); nothing written by a refused call.
 */

const ROLES = ['plain', 'member', 'editor', 'admin', 'otherAdmin', 'otherEditor', 'newcomer'] as const;
let app: TestApp;
let people: People<(typeof ROLES)[number]>;
let who: Record<'anonymous' | (typeof ROLES)[number] | 'sysadmin', Auth>;

test.before(async (t) => {
  ({ app, people } = await startTestAppWithPeople('ckow', ROLES));
  who = {
    anonymous,
    sysadmin: app.sysadmin,
    ...(Object.fromEntries(ROLES.map((r) => [r, as(people[r])])) as Record<(typeof ROLES)[number], Auth>),
  };
  await groupWithMembers(t, app, ORGANIZATIONS, { name: 'ow-other' }, { admin: people.otherAdmin, editor: people.otherEditor });
});
test.after.always(async () => app?.stop());

function isCkanError(t: ExecutionContext, reply: Reply, status: number, type: string) {
  t.is(reply.status, status, reply.text);
  t.is(reply.body?.success, false, reply.text);
  t.is(reply.body?.error?.__type, type, reply.text);
}

/** A fresh organization (or category) where the shared people hold their roles. */
const orgWithRoles = (t: ExecutionContext, base = ORGANIZATIONS) =>
  groupWithMembers(
    t,
    app,
    base,
    { name: unique('ow'), title: 'Roles', description: 'Kept' },
    {
      admin: people.admin,
      editor: people.editor,
      member: people.member,
    },
  );

const restMembers = async (base: string, name: string) => {
  const reply = await app.api.get(`${base}/${name}/members?limit=100`, app.sysadmin);
  return Object.fromEntries(reply.body.results.map((m: { username: string; role: string }) => [m.username, m.role]));
};

const NOT_SYSADMINS = ['anonymous', 'plain', 'member', 'editor', 'admin', 'otherAdmin'] as const;
/** Everyone below an organization's admin: refused its updates, deletes and member changes. */
const BELOW_ADMIN = ['anonymous', 'plain', 'member', 'editor', 'otherAdmin', 'otherEditor'] as const;

// --- create ------------------------------------------------------------------------------------------

test('organization_create (sysadmin) takes CKAN’s dict with its id and users, and answers organization_show’s dict', async (t) => {
  const id = crypto.randomUUID();
  const name = unique('owc');
  const reply = await ckanPost(
    app.api,
    'organization_create',
    {
      id,
      name,
      title: 'Made by CKAN',
      description: 'From a script',
      image_url: 'https://example.org/logo.png',
      users: [
        { name: people.editor.username, capacity: 'editor' },
        { name: people.member.id },
        { name: 'no-such-user', capacity: 'admin' },
      ],
      // Read-only keys of a dict a show gave back are ignored, as CKAN ignores them.
      package_count: 12,
      display_name: 'x',
      extras: [],
      type: 'organization',
    },
    app.sysadmin,
  );
  const org = resultOf(reply);
  t.like(org, {
    id,
    name,
    title: 'Made by CKAN',
    description: 'From a script',
    image_url: 'https://example.org/logo.png',
    is_organization: true,
    type: 'organization',
    state: 'active',
    package_count: 0,
  });
  t.deepEqual(
    org.users.map((u: { name: string; capacity: string }) => [u.name, u.capacity]),
    [
      [people.editor.username, 'editor'],
      [people.member.username, 'member'],
    ].sort(),
    'an unknown user is skipped, as CKAN skips it',
  );
  const rest = await app.api.get(`${ORGANIZATIONS}/${id}`);
  t.like(rest.body, { name, title: 'Made by CKAN', imageUrl: 'https://example.org/logo.png' });
  t.deepEqual(await restMembers(ORGANIZATIONS, name), { [people.editor.username]: 'editor', [people.member.username]: 'member' });
});

test('organization_create and group_create: sysadmins only; everyone else gets CKAN’s Authorization Error and nothing is made', async (t) => {
  for (const action of ['organization_create', 'group_create']) {
    for (const caller of NOT_SYSADMINS) {
      const name = unique('owdeny');
      isCkanError(t, await ckanPost(app.api, action, { name }, who[caller]), 403, 'Authorization Error');
      const base = action === 'organization_create' ? ORGANIZATIONS : CATEGORIES;
      t.is((await app.api.get(`${base}/${name}`)).status, 404, `${caller}: nothing made`);
    }
  }
  // A write action answers no GET, as CKAN answers it.
  const get = await ckanGet(app.api, 'organization_create', { name: unique('owget') }, app.sysadmin);
  isCkanError(t, get, 400, 'Bad Request');
});

test('a bad organization dict is one Validation Error (409) naming CKAN’s keys, and nothing is made', async (t) => {
  const reply = await ckanPost(
    app.api,
    'organization_create',
    {
      name: 'Not A Slug!',
      image_url: 'ftp://example.org/x.png',
      id: 'not-a-uuid',
      extras: [{ key: 'a', value: 'b' }],
      packages: [{ name: 'some-dataset' }],
      users: [{ name: people.editor.username, capacity: 'owner' }],
      type: 'group',
    },
    app.sysadmin,
  );
  isCkanError(t, reply, 409, 'Validation Error');
  const fields = Object.keys(reply.body.error)
    .filter((k) => !['__type', 'message'].includes(k))
    .sort();
  t.deepEqual(fields, ['extras', 'id', 'image_url', 'name', 'packages', 'type', 'users']);
  for (const field of fields) t.true(Array.isArray(reply.body.error[field]) && reply.body.error[field].length > 0, field);
  t.regex(reply.body.error.users[0], /role "owner" does not exist/);

  const missing = await ckanPost(app.api, 'organization_create', { title: 'No name' }, app.sysadmin);
  isCkanError(t, missing, 409, 'Validation Error');
  t.deepEqual(missing.body.error.name, ['Missing value']);

  const name = unique('owdup');
  resultOf(await ckanPost(app.api, 'organization_create', { name }, app.sysadmin));
  const dup = await ckanPost(app.api, 'organization_create', { name, title: 'Second' }, app.sysadmin);
  isCkanError(t, dup, 409, 'Validation Error');
  t.deepEqual(dup.body.error.name, ['is already taken']);
  t.is((await app.api.get(`${ORGANIZATIONS}/${name}`)).body.title, name, 'the first one stands');
  // The same name as an organization is free for a group: names are unique per kind, as REST has them.
  resultOf(await ckanPost(app.api, 'group_create', { name }, app.sysadmin));
  const takenId = resultOf(await ckanPost(app.api, 'organization_show', { id: name })).id;
  const dupId = await ckanPost(app.api, 'group_create', { name: unique('owid'), id: takenId }, app.sysadmin);
  isCkanError(t, dupId, 409, 'Validation Error');
  t.deepEqual(dupId.body.error.id, ['is already taken']);
});

// --- update, patch, delete ---------------------------------------------------------------------------

test('organization_update replaces the fields (the name kept when left out); organization_patch changes only those given', async (t) => {
  const org = await orgWithRoles(t);
  const patched = resultOf(
    await ckanPost(app.api, 'organization_patch', { id: org.name, title: 'Patched', image_url: 'https://example.org/p.png' }, who.admin),
  );
  t.like(patched, { id: org.id, name: org.name, title: 'Patched', description: 'Kept', image_url: 'https://example.org/p.png' });

  const updated = resultOf(await ckanPost(app.api, 'organization_update', { id: org.id, title: 'Updated' }, who.admin));
  t.like(updated, { id: org.id, name: org.name, title: 'Updated', description: '', image_url: '' });
  const rest = (await app.api.get(`${ORGANIZATIONS}/${org.id}`)).body;
  t.like(rest, { name: org.name, title: 'Updated', description: null, imageUrl: null });

  const renamed = unique('owren');
  t.like(resultOf(await ckanPost(app.api, 'organization_patch', { id: org.id, name: renamed }, app.sysadmin)), {
    name: renamed,
    title: 'Updated',
  });
  // The members are untouched when `users` is left out.
  t.deepEqual(await restMembers(ORGANIZATIONS, renamed), {
    [people.admin.username]: 'admin',
    [people.editor.username]: 'editor',
    [people.member.username]: 'member',
  });
});

test('organization_update/patch/delete: the org admin and sysadmins; everyone else is refused and nothing changes', async (t) => {
  const org = await orgWithRoles(t);
  for (const caller of BELOW_ADMIN) {
    for (const action of ['organization_update', 'organization_patch', 'organization_delete']) {
      const reply = await ckanPost(app.api, action, { id: org.name, title: `By ${caller}` }, who[caller]);
      isCkanError(t, reply, 403, 'Authorization Error');
    }
  }
  t.like((await app.api.get(`${ORGANIZATIONS}/${org.name}`)).body, { title: 'Roles', state: 'active' });
  t.like(resultOf(await ckanPost(app.api, 'organization_patch', { id: org.name, title: 'By sysadmin' }, app.sysadmin)), {
    title: 'By sysadmin',
  });
  isCkanError(t, await ckanPost(app.api, 'organization_patch', { id: 'no-such-org', title: 'x' }, app.sysadmin), 404, 'Not Found Error');
  isCkanError(t, await ckanPost(app.api, 'organization_update', { title: 'x' }, app.sysadmin), 409, 'Validation Error');
  const bad = await ckanPost(app.api, 'organization_update', { id: org.name, name: 'UPPER case' }, who.admin);
  isCkanError(t, bad, 409, 'Validation Error');
  t.truthy(bad.body.error.name);
});

test('organization_delete soft-deletes as REST does: gone for everyone but sysadmins, who may restore it', async (t) => {
  const org = await orgWithRoles(t);
  const deleted = await ckanPost(app.api, 'organization_delete', { id: org.name }, who.admin);
  t.is(deleted.status, 200, deleted.text);
  t.is(deleted.body.result, null);
  isCkanError(t, await ckanGet(app.api, 'organization_show', { id: org.name }), 404, 'Not Found Error');
  isCkanError(t, await ckanPost(app.api, 'organization_patch', { id: org.name, title: 'x' }, who.admin), 404, 'Not Found Error');
  t.false(resultOf(await ckanGet(app.api, 'organization_list')).includes(org.name));
  t.is((await app.api.post(`${ORGANIZATIONS}/${org.name}/restore`, undefined, app.sysadmin)).status, 200);
  t.is(resultOf(await ckanGet(app.api, 'organization_show', { id: org.name })).state, 'active');
});

test('organization_delete is refused while the organization holds a dataset that is not deleted, drafts included, as CKAN refuses it', async (t) => {
  const org = await orgWithRoles(t);
  const draft = resultOf(
    await ckanPost(app.api, 'package_create', { name: `${org.name}-draft`, owner_org: org.name, state: 'draft' }, app.sysadmin),
  );
  const refused = await ckanPost(app.api, 'organization_delete', { id: org.name }, who.admin);
  isCkanError(t, refused, 409, 'Validation Error');
  t.is(refused.body.error.message, 'Organization cannot be deleted while it still has datasets');
  t.is(resultOf(await ckanGet(app.api, 'organization_show', { id: org.name })).state, 'active');
  // A deleted dataset does not hold it.
  t.is(resultOf(await ckanPost(app.api, 'package_delete', { id: draft.id }, app.sysadmin)), null);
  t.is((await ckanPost(app.api, 'organization_delete', { id: org.name }, who.admin)).status, 200);
});

test('organization_update with users replaces the member list; organization_show gives users to members only', async (t) => {
  const org = await orgWithRoles(t);
  const shown = resultOf(await ckanGet(app.api, 'organization_show', { id: org.name }, who.member));
  t.deepEqual(
    shown.users.map((u: { name: string; capacity: string }) => [u.name, u.capacity]),
    [
      [people.admin.username, 'admin'],
      [people.editor.username, 'editor'],
      [people.member.username, 'member'],
    ].sort(),
  );
  for (const u of shown.users) t.false('email' in u);
  for (const caller of ['anonymous', 'plain', 'otherAdmin'] as const) {
    t.false('users' in resultOf(await ckanGet(app.api, 'organization_show', { id: org.name }, who[caller])), caller);
  }
  t.false('users' in resultOf(await ckanGet(app.api, 'organization_show', { id: org.name, include_users: 'false' }, who.member)));

  const result = resultOf(
    await ckanPost(
      app.api,
      'organization_update',
      {
        id: org.name,
        title: 'Roles',
        users: [
          { name: people.admin.username, capacity: 'admin' },
          { name: people.newcomer.username, capacity: 'editor' },
        ],
      },
      who.admin,
    ),
  );
  t.deepEqual(result.users.map((u: { name: string }) => u.name).sort(), [people.admin.username, people.newcomer.username].sort());
  t.deepEqual(await restMembers(ORGANIZATIONS, org.name), { [people.admin.username]: 'admin', [people.newcomer.username]: 'editor' });
});

test('organization_update with the users a show gave keeps a soft-deleted member’s membership for their restore', async (t) => {
  const org = await orgWithRoles(t);
  const away = await app.api.newUser(unique('ow-away'));
  resultOf(await ckanPost(app.api, 'organization_member_create', { id: org.name, username: away.username, role: 'editor' }, app.sysadmin));
  t.is((await app.api.delete(`/api/v1/admin/users/${away.id}`, app.sysadmin)).status, 204);
  const shown = resultOf(await ckanGet(app.api, 'organization_show', { id: org.name }, who.admin));
  t.false(
    shown.users.some((u: { name: string }) => u.name === away.username),
    'a soft-deleted member is not listed',
  );
  resultOf(await ckanPost(app.api, 'organization_update', { id: org.name, title: 'Roles', users: shown.users }, who.admin));
  t.is((await app.api.post(`/api/v1/admin/users/${away.id}/restore`, undefined, app.sysadmin)).status, 200);
  t.is((await restMembers(ORGANIZATIONS, org.name))[away.username], 'editor');
});

test('group_create/update/patch/delete write Almanac categories under the same rules', async (t) => {
  const name = unique('owg');
  const created = resultOf(await ckanPost(app.api, 'group_create', { name, title: 'A group', description: 'Desc' }, app.sysadmin));
  t.like(created, { name, title: 'A group', type: 'group', is_organization: false });
  t.is((await app.api.get(`${CATEGORIES}/${name}`)).body.title, 'A group');
  isCkanError(t, await ckanPost(app.api, 'organization_show', { id: name }), 404, 'Not Found Error');

  const cat = await orgWithRoles(t, CATEGORIES);
  for (const caller of BELOW_ADMIN) {
    isCkanError(t, await ckanPost(app.api, 'group_patch', { id: cat.name, title: 'x' }, who[caller]), 403, 'Authorization Error');
  }
  t.like(resultOf(await ckanPost(app.api, 'group_patch', { id: cat.name, title: 'Patched' }, who.admin)), {
    title: 'Patched',
    description: 'Kept',
  });
  t.like(resultOf(await ckanPost(app.api, 'group_update', { id: cat.name }, who.admin)), { title: cat.name, description: '' });
  const wrongType = await ckanPost(app.api, 'group_update', { id: cat.name, type: 'organization' }, who.admin);
  isCkanError(t, wrongType, 409, 'Validation Error');
  t.truthy(wrongType.body.error.type);
  isCkanError(t, await ckanPost(app.api, 'group_delete', { id: cat.name }, who.editor), 403, 'Authorization Error');
  t.is(resultOf(await ckanPost(app.api, 'group_delete', { id: cat.name }, who.admin)), null);
  t.is((await app.api.get(`${CATEGORIES}/${cat.name}`)).status, 404);
});

// --- members -----------------------------------------------------------------------------------------

test('organization_member_create adds or changes a member (org admin, sysadmin); CKAN’s member dict comes back', async (t) => {
  const org = await orgWithRoles(t);
  const added = resultOf(
    await ckanPost(app.api, 'organization_member_create', { id: org.name, username: people.newcomer.username, role: 'editor' }, who.admin),
  );
  t.deepEqual(added, { group_id: org.id, table_name: 'user', table_id: people.newcomer.id, capacity: 'editor', state: 'active' });
  const changed = resultOf(
    await ckanPost(app.api, 'organization_member_create', { id: org.id, username: people.newcomer.id, role: 'member' }, app.sysadmin),
  );
  t.is(changed.capacity, 'member');
  t.is((await restMembers(ORGANIZATIONS, org.name))[people.newcomer.username], 'member');

  for (const caller of BELOW_ADMIN) {
    const reply = await ckanPost(
      app.api,
      'organization_member_create',
      { id: org.name, username: people.plain.username, role: 'admin' },
      who[caller],
    );
    isCkanError(t, reply, 403, 'Authorization Error');
  }
  t.false(people.plain.username in (await restMembers(ORGANIZATIONS, org.name)), 'nobody made themselves or anyone a member');

  const badRole = await ckanPost(
    app.api,
    'organization_member_create',
    { id: org.name, username: people.plain.username, role: 'owner' },
    who.admin,
  );
  isCkanError(t, badRole, 409, 'Validation Error');
  t.deepEqual(badRole.body.error.role, ['role "owner" does not exist']);
  const noUser = await ckanPost(
    app.api,
    'organization_member_create',
    { id: org.name, username: 'nobody-here', role: 'member' },
    who.admin,
  );
  isCkanError(t, noUser, 409, 'Validation Error');
  t.truthy(noUser.body.error.username);
  const missing = await ckanPost(app.api, 'organization_member_create', { id: org.name }, who.admin);
  isCkanError(t, missing, 409, 'Validation Error');
  isCkanError(
    t,
    await ckanPost(
      app.api,
      'organization_member_create',
      { id: 'no-such-org', username: people.plain.username, role: 'member' },
      who.admin,
    ),
    404,
    'Not Found Error',
  );
});

test('organization_member_delete removes a member (org admin, sysadmin); others are refused', async (t) => {
  const org = await orgWithRoles(t);
  for (const caller of BELOW_ADMIN) {
    const reply = await ckanPost(app.api, 'organization_member_delete', { id: org.name, username: people.member.username }, who[caller]);
    isCkanError(t, reply, 403, 'Authorization Error');
  }
  t.is((await restMembers(ORGANIZATIONS, org.name))[people.member.username], 'member');
  t.is(
    resultOf(await ckanPost(app.api, 'organization_member_delete', { id: org.name, username: people.member.username }, who.admin)),
    null,
  );
  t.false(people.member.username in (await restMembers(ORGANIZATIONS, org.name)));
  const again = await ckanPost(app.api, 'organization_member_delete', { id: org.name, username: people.member.username }, who.admin);
  isCkanError(t, again, 404, 'Not Found Error');
  const unknown = await ckanPost(app.api, 'organization_member_delete', { id: org.name, username: 'nobody-here' }, who.plain);
  isCkanError(t, unknown, 403, 'Authorization Error');
});

test('group_member_create and group_member_delete manage a category’s members the same way', async (t) => {
  const cat = await orgWithRoles(t, CATEGORIES);
  isCkanError(
    t,
    await ckanPost(app.api, 'group_member_create', { id: cat.name, username: people.newcomer.username, role: 'member' }, who.editor),
    403,
    'Authorization Error',
  );
  t.like(
    resultOf(
      await ckanPost(app.api, 'group_member_create', { id: cat.name, username: people.newcomer.username, role: 'member' }, who.admin),
    ),
    { group_id: cat.id, table_id: people.newcomer.id, capacity: 'member' },
  );
  t.is((await restMembers(CATEGORIES, cat.name))[people.newcomer.username], 'member');
  resultOf(await ckanPost(app.api, 'group_member_delete', { id: cat.name, username: people.newcomer.id }, who.admin));
  t.false(people.newcomer.username in (await restMembers(CATEGORIES, cat.name)));
  // An organization is not a group: its name here is not found.
  isCkanError(
    t,
    await ckanPost(app.api, 'group_member_create', { id: 'ow-other', username: people.plain.username, role: 'member' }, app.sysadmin),
    404,
    'Not Found Error',
  );
});

test('member_create/member_delete: a user into either kind; a dataset into a group; an organization holds datasets by owner_org', async (t) => {
  const org = await orgWithRoles(t);
  const cat = await orgWithRoles(t, CATEGORIES);
  const user = resultOf(
    await ckanPost(
      app.api,
      'member_create',
      { id: org.name, object: people.newcomer.username, object_type: 'user', capacity: 'editor' },
      who.admin,
    ),
  );
  t.deepEqual(user, { group_id: org.id, table_name: 'user', table_id: people.newcomer.id, capacity: 'editor', state: 'active' });
  isCkanError(
    t,
    await ckanPost(
      app.api,
      'member_create',
      { id: org.name, object: people.plain.username, object_type: 'user', capacity: 'admin' },
      who.editor,
    ),
    403,
    'Authorization Error',
  );
  const badCapacity = await ckanPost(
    app.api,
    'member_create',
    { id: org.name, object: people.plain.id, object_type: 'user', capacity: 'public' },
    who.admin,
  );
  isCkanError(t, badCapacity, 409, 'Validation Error');
  t.truthy(badCapacity.body.error.capacity);
  resultOf(await ckanPost(app.api, 'member_delete', { id: org.id, object: people.newcomer.id, object_type: 'user' }, who.admin));
  t.false(people.newcomer.username in (await restMembers(ORGANIZATIONS, org.name)));

  const dataset = unique('owds');
  t.is((await app.api.post('/api/v1/packages', { name: dataset, ownerOrg: org.name, licenseId: 'cc-by' }, app.sysadmin)).status, 201);
  // The dataset's editors who are members of the group put it there (REST's rule for a dataset's groups).
  isCkanError(
    t,
    await ckanPost(app.api, 'member_create', { id: cat.name, object: dataset, object_type: 'package', capacity: 'public' }, who.otherAdmin),
    403,
    'Authorization Error',
  );
  const pkg = resultOf(
    await ckanPost(app.api, 'member_create', { id: cat.name, object: dataset, object_type: 'package', capacity: 'public' }, who.editor),
  );
  t.like(pkg, { group_id: cat.id, table_name: 'package', capacity: 'public' });
  const shown = resultOf(await ckanGet(app.api, 'package_show', { id: dataset }));
  t.deepEqual(
    shown.groups.map((g: { name: string }) => g.name),
    [cat.name],
  );
  t.is(pkg.table_id, shown.id);
  resultOf(await ckanPost(app.api, 'member_delete', { id: cat.id, object: shown.id, object_type: 'package' }, who.editor));
  t.deepEqual(resultOf(await ckanGet(app.api, 'package_show', { id: dataset })).groups, []);

  const intoOrg = await ckanPost(
    app.api,
    'member_create',
    { id: 'ow-other', object: dataset, object_type: 'package', capacity: 'organization' },
    app.sysadmin,
  );
  isCkanError(t, intoOrg, 409, 'Validation Error');
  t.regex(intoOrg.body.error.object_type[0], /owner_org/);
  const hierarchy = await ckanPost(
    app.api,
    'member_create',
    { id: cat.name, object: org.name, object_type: 'group', capacity: 'parent' },
    app.sysadmin,
  );
  isCkanError(t, hierarchy, 409, 'Validation Error');
  t.truthy(hierarchy.body.error.object_type);
  isCkanError(
    t,
    await ckanPost(
      app.api,
      'member_create',
      { id: 'no-such-group', object: dataset, object_type: 'package', capacity: 'public' },
      app.sysadmin,
    ),
    404,
    'Not Found Error',
  );
});

// --- users -------------------------------------------------------------------------------------------

test('user_show: signed-in callers only; email and the sysadmin flag only to the user and sysadmins', async (t) => {
  isCkanError(t, await ckanGet(app.api, 'user_show', { id: people.editor.username }), 403, 'Authorization Error');
  const seen = resultOf(await ckanGet(app.api, 'user_show', { id: people.editor.username }, who.plain));
  t.like(seen, { id: people.editor.id, name: people.editor.username, state: 'active' });
  t.false('email' in seen);
  t.false('sysadmin' in seen);
  t.false(JSON.stringify(seen).includes('@example.org'), 'no email anywhere in the dict');
  const self = resultOf(await ckanGet(app.api, 'user_show', { id: people.editor.id }, who.editor));
  t.like(self, { name: people.editor.username, email: `${people.editor.username}@example.org`, sysadmin: false });
  const bySysadmin = resultOf(await ckanPost(app.api, 'user_show', { id: people.editor.username }, app.sysadmin));
  t.is(bySysadmin.email, `${people.editor.username}@example.org`);
  const root = resultOf(await ckanGet(app.api, 'user_show', { id: 'root' }, who.plain));
  t.false('sysadmin' in root || 'email' in root);
  isCkanError(t, await ckanGet(app.api, 'user_show', { id: 'no-such-user' }, who.plain), 404, 'Not Found Error');
  isCkanError(t, await ckanGet(app.api, 'user_show', {}, who.plain), 409, 'Validation Error');
});

test('user_show include_datasets lists the datasets they created that the caller may see', async (t) => {
  const org = await orgWithRoles(t);
  const open = unique('owopen');
  const hidden = unique('owhidden');
  for (const [name, priv] of [
    [open, false],
    [hidden, true],
  ] as const) {
    const reply = await app.api.post('/api/v1/packages', { name, ownerOrg: org.name, licenseId: 'cc-by', private: priv }, who.editor);
    t.is(reply.status, 201, reply.text);
  }
  const byPlain = resultOf(await ckanGet(app.api, 'user_show', { id: people.editor.username, include_datasets: 'true' }, who.plain));
  const plainSees = byPlain.datasets.map((d: { name: string }) => d.name);
  t.true(plainSees.includes(open));
  t.false(plainSees.includes(hidden));
  t.false(JSON.stringify(byPlain).includes(hidden));
  const byMember = resultOf(await ckanGet(app.api, 'user_show', { id: people.editor.username, include_datasets: 'true' }, who.member));
  t.true(byMember.datasets.map((d: { name: string }) => d.name).includes(hidden));
  t.is(byMember.number_created_packages, byPlain.number_created_packages + 1);
  t.false('datasets' in resultOf(await ckanGet(app.api, 'user_show', { id: people.editor.username }, who.plain)));
});

test('organization_list_for_user: the caller’s organizations by permission, with capacity; another user’s for sysadmins only', async (t) => {
  const org = await orgWithRoles(t);
  const names = (reply: Reply) => resultOf(reply).map((o: { name: string }) => o.name);
  const has = async (caller: 'member' | 'editor' | 'admin', permission: string) =>
    names(await ckanGet(app.api, 'organization_list_for_user', { permission }, who[caller])).includes(org.name);
  for (const [permission, least] of [
    ['read', 'member'],
    ['manage_group', 'member'],
    ['create_dataset', 'editor'],
    ['update_dataset', 'editor'],
    ['admin', 'admin'],
  ] as const) {
    const rank = { member: 1, editor: 2, admin: 3 };
    for (const caller of ['member', 'editor', 'admin'] as const) {
      t.is(await has(caller, permission), rank[caller] >= rank[least], `${caller} ${permission}`);
    }
  }
  const mine = resultOf(await ckanGet(app.api, 'organization_list_for_user', { include_dataset_count: 'true' }, who.editor));
  const entry = mine.find((o: { name: string }) => o.name === org.name);
  t.like(entry, { id: org.id, capacity: 'editor', package_count: 0, is_organization: true });
  t.false('package_count' in resultOf(await ckanGet(app.api, 'organization_list_for_user', {}, who.editor))[0]);

  const all = names(await ckanGet(app.api, 'organization_list_for_user', { permission: 'admin' }, app.sysadmin));
  t.true(all.includes(org.name) && all.includes('ow-other'), 'a sysadmin holds every organization');
  t.deepEqual(resultOf(await ckanGet(app.api, 'organization_list_for_user', {})), [], 'anonymous: none');
  t.deepEqual(names(await ckanGet(app.api, 'organization_list_for_user', {}, who.plain)), []);

  const theirs = names(await ckanGet(app.api, 'organization_list_for_user', { id: people.otherEditor.username }, app.sysadmin));
  t.deepEqual(theirs, ['ow-other']);
  t.deepEqual(names(await ckanGet(app.api, 'organization_list_for_user', { id: people.otherEditor.id }, who.otherEditor)), ['ow-other']);
  for (const caller of ['anonymous', 'plain', 'otherAdmin'] as const) {
    isCkanError(
      t,
      await ckanGet(app.api, 'organization_list_for_user', { id: people.otherEditor.username }, who[caller]),
      403,
      'Authorization Error',
    );
    isCkanError(t, await ckanGet(app.api, 'organization_list_for_user', { id: 'no-such-user' }, who[caller]), 403, 'Authorization Error');
  }
  isCkanError(t, await ckanGet(app.api, 'organization_list_for_user', { id: 'no-such-user' }, app.sysadmin), 404, 'Not Found Error');
  const bad = await ckanGet(app.api, 'organization_list_for_user', { permission: 'fly' }, who.editor);
  isCkanError(t, bad, 409, 'Validation Error');
  t.truthy(bad.body.error.permission);
});

test('a rename onto a taken name is refused by name, and neither the fields nor the members given change', async (t) => {
  const org = await orgWithRoles(t);
  const other = await orgWithRoles(t);
  const reply = await ckanPost(
    app.api,
    'organization_update',
    { id: org.name, name: other.name, users: [{ name: people.newcomer.username, capacity: 'admin' }] },
    app.sysadmin,
  );
  isCkanError(t, reply, 409, 'Validation Error');
  t.deepEqual(reply.body.error.name, ['is already taken']);
  t.deepEqual(await restMembers(ORGANIZATIONS, org.name), {
    [people.admin.username]: 'admin',
    [people.editor.username]: 'editor',
    [people.member.username]: 'member',
  });
});

test('the ids of created groups are UUIDs, and the same dict comes from organization_show', async (t) => {
  const created = resultOf(await ckanPost(app.api, 'organization_create', { name: unique('owshow') }, app.sysadmin));
  t.regex(created.id, UUID);
  const shown = resultOf(await ckanGet(app.api, 'organization_show', { id: created.id }, app.sysadmin));
  t.deepEqual(shown, created);
});

/** The organization fixture of createGroup (helpers) stays usable with these actions. */
test('an organization REST made is updated by CKAN’s actions and the other way round', async (t) => {
  const made = await createGroup(t, app, ORGANIZATIONS, { name: unique('owrest'), title: 'REST' });
  resultOf(await ckanPost(app.api, 'organization_patch', { id: made.id, description: 'via CKAN' }, app.sysadmin));
  const put = await app.api.put(`${ORGANIZATIONS}/${made.id}`, { name: made.name, title: 'REST again' }, app.sysadmin);
  t.is(put.status, 200);
  t.like(resultOf(await ckanGet(app.api, 'organization_show', { id: made.name })), { title: 'REST again', description: '' });
});
