import { randomBytes } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { fieldPaths, isProblem } from '../helpers/problem.ts';
import { startTestAppWithPeople, type People, type TestApp } from '../helpers/app.ts';
import { anonymous, as, type Auth, type Reply } from '../helpers/client.ts';
import { CATEGORIES, ORGANIZATIONS, groupWithMembers } from '../helpers/groups.ts';
import { unique } from '../helpers/names.ts';

/**
 * GET /packages over HTTP: the list envelope and defaults of DESIGN §4, every parameter of the spec's
 * table, the draft listing rules 1–4 of spec §4, facets, and keyword search (issue 3 items 4 and 5).
 *
 * Tests run concurrently on one database, so each builds its own organization (and unique words) and
 * scopes its listings to it with `organization=` or `name=`; checks over the whole database only look at
 * whether a dataset of the test's own is present or absent.
 */

let app: TestApp;
/** Shared users; each test gives them roles in its own organizations. */
let people: People<'editor' | 'member' | 'plain' | 'creator' | 'otherEditor'>;
test.before(async () => {
  ({ app, people } = await startTestAppWithPeople('ls', ['editor', 'member', 'plain', 'creator', 'otherEditor']));
});
test.after.always(async () => app?.stop());

const PKG = '/api/v1/packages';

/**
 * A random word of letters only, unlike any English word and unlike each other (the typo fallback would
 * rightly match two words sharing most of their trigrams), so keyword search finds exactly one test's datasets.
 */
const word = () => Array.from(randomBytes(10), (b) => String.fromCharCode(97 + (b % 26))).join('');

const names = (reply: Reply) => (reply.body?.results ?? []).map((d: { name: string }) => d.name);

async function list(t: ExecutionContext, query: string, auth: Auth = anonymous) {
  const res = await app.api.get(`${PKG}?${query}`, auth);
  t.is(res.status, 200, res.text);
  return res;
}

/** An organization with the shared editor and member in their roles. */
const orgWithRoles = (t: ExecutionContext, prefix = 'lorg') =>
  groupWithMembers(
    t,
    app,
    ORGANIZATIONS,
    { name: unique(prefix), title: `Title of ${prefix}` },
    { editor: people.editor, member: people.member },
  );

/** A category the shared editor may add datasets to. */
const category = (t: ExecutionContext) =>
  groupWithMembers(t, app, CATEGORIES, { name: unique('lcat'), title: 'A category' }, { member: people.editor });

async function createActive(
  t: ExecutionContext,
  org: { name: string },
  fields: Record<string, unknown> = {},
  auth: Auth = as(people.editor),
) {
  const res = await app.api.post(PKG, { name: unique('lds'), ownerOrg: org.name, licenseId: 'cc-by-4.0', ...fields }, auth);
  t.is(res.status, 201, res.text);
  return res.body;
}

async function createDraft(t: ExecutionContext, auth: Auth, fields: Record<string, unknown> = {}) {
  const res = await app.api.post(`${PKG}/drafts`, fields, auth);
  t.is(res.status, 201, res.text);
  return res.body;
}

const link = (name: string, format: string | null = 'csv', extra: Record<string, unknown> = {}) => ({
  name,
  url: unique(`https://example.org/files/${encodeURIComponent(name)}`),
  format,
  ...extra,
});

// --- envelope, defaults, limits, sorting, paging ------------------------------------------------

test('the envelope is {count, offset, limit, results} with defaults limit 20 and offset 0', async (t) => {
  const res = await list(t, '');
  t.deepEqual(Object.keys(res.body).sort(), ['count', 'limit', 'offset', 'results']);
  t.is(res.body.limit, 20);
  t.is(res.body.offset, 0);
  t.true(Array.isArray(res.body.results));
  t.true(res.body.results.length <= 20);
  t.true(res.body.count >= res.body.results.length);

  const explicit = await list(t, 'limit=3&offset=1');
  t.is(explicit.body.limit, 3);
  t.is(explicit.body.offset, 1);
});

test('limit over 100 → 400 invalid_parameters naming limit; 100 is accepted', async (t) => {
  const res = await app.api.get(`${PKG}?limit=101`);
  isProblem(t, res, 400, 'invalid_parameters');
  t.true(fieldPaths(res).includes('limit'), res.text);
  t.is((await list(t, 'limit=100')).body.limit, 100);
  isProblem(t, await app.api.get(`${PKG}?sort_by=title`), 400, 'invalid_parameters');
  isProblem(t, await app.api.get(`${PKG}?state=bogus`), 400, 'invalid_parameters');
});

test('default state is active and default order is updated desc; sort_by=name defaults to asc; sort_order applies', async (t) => {
  const org = await orgWithRoles(t);
  const created = [];
  for (const n of ['c', 'a', 'e', 'b', 'd']) created.push(await createActive(t, org, { name: `${unique('srt')}-${n}` }));
  // Touch the second-created one: it becomes the most recently updated.
  const touched = created[1];
  const put = await app.api.put(
    `${PKG}/${touched.name}`,
    { name: touched.name, ownerOrg: org.name, licenseId: 'cc-by-4.0', title: 'touched' },
    as(people.editor),
  );
  t.is(put.status, 200, put.text);
  await app.api.delete(`${PKG}/${created[4].name}`, as(people.editor));

  const byUpdated = await list(t, `organization=${org.name}`);
  t.is(byUpdated.body.count, 4);
  t.true(byUpdated.body.results.every((d: { state: string }) => d.state === 'active'));
  t.is(byUpdated.body.results[0].name, touched.name);
  const stamps = byUpdated.body.results.map((d: { updatedAt: string }) => Date.parse(d.updatedAt));
  t.deepEqual(
    stamps,
    [...stamps].sort((a, b) => b - a),
  );
  t.deepEqual(names(await list(t, `organization=${org.name}&sort_by=updated&sort_order=desc`)), names(byUpdated));

  const active = created.slice(0, 4).map((d) => d.name);
  t.deepEqual(names(await list(t, `organization=${org.name}&sort_by=name`)), [...active].sort());
  t.deepEqual(names(await list(t, `organization=${org.name}&sort_by=name&sort_order=desc`)), [...active].sort().reverse());
  t.deepEqual(names(await list(t, `organization=${org.name}&sort_by=created&sort_order=asc`)), active);
  t.deepEqual(names(await list(t, `organization=${org.name}&sort_by=created`)), [...active].reverse());
  t.deepEqual(names(await list(t, `organization=${org.name}&sort_by=updated&sort_order=asc`)), names(byUpdated).reverse());
});

test('paging walks the whole filtered set in a stable order without repeats', async (t) => {
  const org = await orgWithRoles(t);
  for (let i = 0; i < 7; i++) await createActive(t, org);
  for (const sort of ['', '&sort_by=name', '&sort_by=created&sort_order=asc']) {
    const all = await list(t, `organization=${org.name}&limit=100${sort}`);
    t.is(all.body.count, 7);
    const walked: string[] = [];
    for (let offset = 0; offset < 7; offset += 3) {
      const page = await list(t, `organization=${org.name}&limit=3&offset=${offset}${sort}`);
      t.is(page.body.count, 7);
      t.is(page.body.offset, offset);
      t.is(page.body.limit, 3);
      walked.push(...names(page));
    }
    t.deepEqual(walked, names(all));
    t.is(new Set(walked).size, 7);
  }
  const beyond = await list(t, `organization=${org.name}&offset=50`);
  t.is(beyond.body.count, 7);
  t.deepEqual(beyond.body.results, []);
});

// --- filters ---------------------------------------------------------------------------------------

test('organization[] by name and by id, several values OR', async (t) => {
  const [a, b, c] = [await orgWithRoles(t), await orgWithRoles(t), await orgWithRoles(t)];
  const da = await createActive(t, a);
  const db = await createActive(t, b);
  await createActive(t, c);
  t.deepEqual(names(await list(t, `organization=${a.name}`)), [da.name]);
  t.deepEqual(names(await list(t, `organization[]=${a.id}`)), [da.name]);
  const both = await list(t, `organization[]=${a.name}&organization[]=${b.id}&sort_by=name`);
  t.deepEqual(names(both), [da.name, db.name].sort());
  t.is(both.body.count, 2);
  t.like(
    both.body.results.find((d: { name: string }) => d.name === da.name),
    { organization: { id: a.id, name: a.name }, ownerOrg: a.id },
  );
  t.is((await list(t, `organization=${unique('no-such-org')}`)).body.count, 0);
});

test('tags[] and tags= forms, values OR; different filters AND', async (t) => {
  const org = await orgWithRoles(t);
  const [x, y, z] = [unique('tx'), unique('ty'), unique('tz')];
  const dx = await createActive(t, org, { tags: [x], licenseId: 'mit' });
  const dy = await createActive(t, org, { tags: [y], licenseId: 'cc-by-4.0' });
  const dxy = await createActive(t, org, { tags: [x, y], licenseId: 'cc-by-4.0' });
  await createActive(t, org, { tags: [z] });

  t.deepEqual(names(await list(t, `tags=${x}&sort_by=name`)), [dx.name, dxy.name].sort());
  const or = [dx.name, dy.name, dxy.name].sort();
  t.deepEqual(names(await list(t, `tags[]=${x}&tags[]=${y}&sort_by=name`)), or);
  t.deepEqual(names(await list(t, `tags=${x}&tags=${y}&sort_by=name`)), or);
  t.is((await list(t, `tags=${x}&tags=${y}`)).body.count, 3);
  // tags AND license AND organization
  t.deepEqual(names(await list(t, `tags=${x}&tags=${y}&license_id=cc-by-4.0&sort_by=name`)), [dy.name, dxy.name].sort());
  t.deepEqual(names(await list(t, `tags=${x}&license_id=mit&organization=${org.name}`)), [dx.name]);
  t.is((await list(t, `tags=${z}&license_id=mit`)).body.count, 0);
});

test('groups[] by name and id, OR within, AND with other filters', async (t) => {
  const org = await orgWithRoles(t);
  const [g1, g2] = [await category(t), await category(t)];
  const d1 = await createActive(t, org, { groups: [g1.name] });
  const d2 = await createActive(t, org, { groups: [g2.id] });
  const d12 = await createActive(t, org, { groups: [g1.name, g2.name], tags: ['gtag-only'] });
  await createActive(t, org);
  t.deepEqual(names(await list(t, `groups=${g1.name}&sort_by=name`)), [d1.name, d12.name].sort());
  t.deepEqual(names(await list(t, `groups[]=${g2.id}&sort_by=name`)), [d2.name, d12.name].sort());
  t.deepEqual(names(await list(t, `groups[]=${g1.name}&groups[]=${g2.name}&sort_by=name`)), [d1.name, d2.name, d12.name].sort());
  t.deepEqual(names(await list(t, `groups=${g2.name}&tags=gtag-only`)), [d12.name]);
});

test('res_format[] is case-insensitive, OR within', async (t) => {
  const org = await orgWithRoles(t);
  const fmt = unique('fmt').replace('-', '');
  const other = unique('fmt').replace('-', '');
  const d1 = await createActive(t, org, { resources: [link('r', fmt.toLowerCase())] });
  const d2 = await createActive(t, org, { resources: [link('r', other), link('s', null)] });
  await createActive(t, org, { resources: [link('r', 'pdf')] });
  t.deepEqual(names(await list(t, `res_format=${fmt.toLowerCase()}`)), [d1.name]);
  t.deepEqual(names(await list(t, `res_format[]=${fmt.toUpperCase()}`)), [d1.name]);
  t.deepEqual(names(await list(t, `res_format=${fmt}&res_format=${other.toLowerCase()}&sort_by=name`)), [d1.name, d2.name].sort());
  t.is((await list(t, `res_format=${fmt}&res_format=${other}`)).body.count, 2);
});

test('license_id[] OR within', async (t) => {
  const org = await orgWithRoles(t);
  const [l1, l2] = [unique('lic'), unique('lic')];
  const d1 = await createActive(t, org, { licenseId: l1 });
  const d2 = await createActive(t, org, { licenseId: l2 });
  await createActive(t, org);
  t.deepEqual(names(await list(t, `license_id=${l1}`)), [d1.name]);
  t.deepEqual(names(await list(t, `license_id[]=${l1}&license_id[]=${l2}&sort_by=name`)), [d1.name, d2.name].sort());
});

test('creator_user_id filters by creator; a malformed id → 400', async (t) => {
  const org = await orgWithRoles(t);
  const byEditor = await createActive(t, org);
  const byAdmin = await createActive(t, org, {}, app.sysadmin);
  t.deepEqual(names(await list(t, `creator_user_id=${people.editor.id}&organization=${org.name}`)), [byEditor.name]);
  const admin = await app.api.get('/api/v1/users/me', app.sysadmin);
  if (admin.status === 200 && admin.body?.id) {
    t.deepEqual(names(await list(t, `creator_user_id=${admin.body.id}&organization=${org.name}`)), [byAdmin.name]);
  }
  const bad = await app.api.get(`${PKG}?creator_user_id=not-a-uuid`);
  isProblem(t, bad, 400, 'invalid_parameters');
  t.true(fieldPaths(bad).includes('creator_user_id'), bad.text);
});

test('my_org limits to the caller’s organizations', async (t) => {
  const mine = await orgWithRoles(t);
  const theirs = await app.api.post('/api/v1/organizations', { name: unique('theirs') }, app.sysadmin);
  t.is(theirs.status, 201, theirs.text);
  const dMine = await createActive(t, mine);
  const dTheirs = await createActive(t, theirs.body, {}, app.sysadmin);

  const forMember = await list(t, 'my_org&limit=100', as(people.member));
  t.true(names(forMember).includes(dMine.name));
  t.false(names(forMember).includes(dTheirs.name));
  t.true(forMember.body.results.every((d: { ownerOrg: string }) => d.ownerOrg !== theirs.body.id));
  t.deepEqual(names(await list(t, `my_org=true&organization=${mine.name}`, as(people.member))), [dMine.name]);
  t.deepEqual(names(await list(t, `my_org=1&organization=${theirs.body.name}`, as(people.member))), []);
  // A user in no organization gets nothing; without the flag both show.
  t.is((await list(t, 'my_org', as(people.plain))).body.count, 0);
  t.is((await list(t, `organization[]=${mine.name}&organization[]=${theirs.body.name}`, as(people.member))).body.count, 2);
});

test('private datasets appear only with the private flag, and only for org members and sysadmins', async (t) => {
  const org = await orgWithRoles(t);
  const pub = await createActive(t, org);
  const priv = await createActive(t, org, { private: true });
  const q = `organization=${org.name}&sort_by=name`;
  for (const auth of [anonymous, as(people.plain), as(people.otherEditor), as(people.member), as(people.editor), app.sysadmin]) {
    t.deepEqual(names(await list(t, q, auth)), [pub.name]);
  }
  for (const auth of [anonymous, as(people.plain), as(people.otherEditor)]) {
    const res = await list(t, `${q}&private`, auth);
    t.deepEqual(names(res), [pub.name]);
    t.is(res.body.count, 1);
  }
  for (const auth of [as(people.member), as(people.editor), app.sysadmin]) {
    const res = await list(t, `${q}&private=true`, auth);
    t.deepEqual(names(res), [pub.name, priv.name].sort());
    t.is(res.body.count, 2);
    t.true(res.body.results.find((d: { name: string }) => d.name === priv.name).private);
  }
  t.deepEqual(names(await list(t, `${q}&private=false`, as(people.member))), [pub.name]);
});

test('state=deleted: org editors and sysadmins see deleted datasets; members and plain users none; anonymous 401', async (t) => {
  const org = await orgWithRoles(t);
  const gone = await createActive(t, org);
  const goneTooPrivate = await createActive(t, org, { private: true });
  const alive = await createActive(t, org);
  for (const d of [gone, goneTooPrivate]) t.is((await app.api.delete(`${PKG}/${d.name}`, as(people.editor))).status, 204);

  const q = `state=deleted&organization=${org.name}&sort_by=name`;
  for (const auth of [as(people.editor), app.sysadmin]) {
    const res = await list(t, q, auth);
    t.deepEqual(names(res), [gone.name]);
    t.true(res.body.results.every((d: { state: string }) => d.state === 'deleted'));
    t.deepEqual(names(await list(t, `${q}&private`, auth)), [gone.name, goneTooPrivate.name].sort());
  }
  for (const auth of [as(people.member), as(people.plain), as(people.otherEditor)]) {
    const res = await list(t, `${q}&private`, auth);
    t.is(res.body.count, 0);
    t.deepEqual(res.body.results, []);
  }
  t.is((await list(t, 'state=deleted&limit=100', as(people.plain))).body.count, 0);
  isProblem(t, await app.api.get(`${PKG}?state=deleted`), 401, 'unauthenticated');
  // The active listing no longer has them.
  t.deepEqual(names(await list(t, `organization=${org.name}&private`, as(people.editor))), [alive.name]);
});

// --- draft listing (spec §4 rules 1–4) -------------------------------------------------------------

test('draft listing rule 1: own drafts plus drafts of orgs where the caller is editor+; anonymous 401', async (t) => {
  const org = await orgWithRoles(t);
  const tag = unique('dr1');
  const ownByCreator = await createDraft(t, as(people.creator), { name: `${tag}-creator` });
  const orgByEditor = await createDraft(t, as(people.editor), { name: `${tag}-org-editor`, ownerOrg: org.name });
  const orgByAdmin = await createDraft(t, app.sysadmin, { name: `${tag}-org-admin`, ownerOrg: org.name });
  const ownByAdmin = await createDraft(t, app.sysadmin, { name: `${tag}-sys` });
  const ownByMember = await createDraft(t, as(people.member), { name: `${tag}-member` });
  const active = await createActive(t, org, { name: `${tag}-active` });

  const seen = async (auth: Auth) => {
    const res = await list(t, `state=draft&name=${tag}&sort_by=name&limit=100`, auth);
    t.true(res.body.results.every((d: { state: string }) => d.state === 'draft'));
    t.is(res.body.count, res.body.results.length);
    return names(res);
  };
  t.deepEqual(await seen(as(people.creator)), [ownByCreator.name]);
  t.deepEqual(await seen(as(people.editor)), [orgByAdmin.name, orgByEditor.name].sort());
  // An org member sees only their own draft, none of the org's.
  t.deepEqual(await seen(as(people.member)), [ownByMember.name]);
  t.deepEqual(await seen(as(people.plain)), []);
  // Even a sysadmin's work list is their own drafts plus orgs where they are editor+ (here: none).
  t.deepEqual(await seen(app.sysadmin), [orgByAdmin.name, ownByAdmin.name].sort());
  t.false((await seen(app.sysadmin)).includes(active.name));

  isProblem(t, await app.api.get(`${PKG}?state=draft`), 401, 'unauthenticated');
});

test('draft listing rule 2: q, name, organization[], private, sort_by, sort_order, offset, limit work', async (t) => {
  const org = await orgWithRoles(t);
  const other = await orgWithRoles(t);
  const tag = unique('dr2');
  const titleWord = word();
  const a = await createDraft(t, as(people.editor), { name: `${tag}-a`, ownerOrg: org.name, title: `Draft ${titleWord} alpha` });
  const b = await createDraft(t, as(people.editor), { name: `${tag}-b`, ownerOrg: org.name });
  const c = await createDraft(t, as(people.editor), { name: `${tag}-c`, ownerOrg: other.name });
  const p = await createDraft(t, as(people.editor), { name: `${tag}-p`, ownerOrg: org.name, private: true });
  const auth = as(people.editor);
  const base = `state=draft&name=${tag}`;

  t.deepEqual(names(await list(t, `${base}&sort_by=name`, auth)), [a.name, b.name, c.name]);
  t.deepEqual(names(await list(t, `${base}&sort_by=name&private`, auth)), [a.name, b.name, c.name, p.name]);
  t.deepEqual(names(await list(t, `${base}&sort_by=name&sort_order=desc`, auth)), [c.name, b.name, a.name]);
  t.deepEqual(names(await list(t, `${base}&sort_by=created&sort_order=asc`, auth)), [a.name, b.name, c.name]);
  t.deepEqual(names(await list(t, `${base}&organization=${other.name}`, auth)), [c.name]);
  t.deepEqual(names(await list(t, `${base}&organization[]=${org.id}&sort_by=name`, auth)), [a.name, b.name]);
  const page = await list(t, `${base}&sort_by=name&offset=1&limit=1`, auth);
  t.deepEqual(names(page), [b.name]);
  t.like(page.body, { count: 3, offset: 1, limit: 1 });
  t.deepEqual(names(await list(t, `state=draft&q=${titleWord}`, auth)), [a.name]);
  t.deepEqual(names(await list(t, `state=draft&name=${tag}-b`, auth)), [b.name]);
});

test('draft listing rule 3: each forbidden filter → 400 unsupported_filter naming it', async (t) => {
  const cases: Array<[string, string]> = [
    ['tags', 'tags=x'],
    ['tags', 'tags[]=x'],
    ['groups', 'groups[]=x'],
    ['res_format', 'res_format=csv'],
    ['license_id', 'license_id[]=mit'],
    ['creator_user_id', `creator_user_id=${people.creator.id}`],
    ['my_org', 'my_org'],
    ['my_org', 'my_org=false'],
    ['include_facets', 'include_facets'],
  ];
  for (const [key, param] of cases) {
    const res = await app.api.get(`${PKG}?state=draft&${param}`, as(people.creator));
    isProblem(t, res, 400, 'unsupported_filter');
    t.deepEqual(fieldPaths(res), [key], `${param}: ${res.text}`);
  }
  const two = await app.api.get(`${PKG}?state=draft&tags=x&include_facets=true`, as(people.creator));
  isProblem(t, two, 400, 'unsupported_filter');
  t.deepEqual(fieldPaths(two), ['include_facets', 'tags']);
  // The same filters are fine on the active listing.
  await list(
    t,
    `tags=x&groups=x&res_format=csv&license_id=mit&creator_user_id=${people.creator.id}&my_org&include_facets`,
    as(people.creator),
  );
});

test('draft listing rule 4: a draft whose deletion was left incomplete is included, flagged', async (t) => {
  const tag = unique('dr4');
  const broken = await createDraft(t, as(people.creator), { name: `${tag}-broken` });
  const fine = await createDraft(t, as(people.creator), { name: `${tag}-fine` });
  await app.almanac.services.orm.em
    .fork()
    .getConnection()
    .execute('update datasets set deletion_incomplete = true where id = ?', [broken.id]);
  const res = await list(t, `state=draft&name=${tag}&sort_by=name`, as(people.creator));
  t.deepEqual(names(res), [broken.name, fine.name]);
  t.is(res.body.results[0].deletionIncomplete, true);
  t.is(res.body.results[1].deletionIncomplete, false);
});

test('drafts never appear in the active listing, search, facets or counts', async (t) => {
  const org = await orgWithRoles(t);
  const w = word();
  const draftTag = unique('drtag');
  const draft = await createDraft(t, as(people.editor), {
    ownerOrg: org.name,
    title: `Secret ${w}`,
    tags: [draftTag],
    licenseId: 'draft-only-licence',
  });
  const active = await createActive(t, org, { title: 'Visible' });
  for (const auth of [as(people.editor), app.sysadmin]) {
    const res = await list(t, `organization=${org.name}&include_facets&private`, auth);
    t.deepEqual(names(res), [active.name]);
    t.is(res.body.count, 1);
    t.deepEqual(res.body.facets.organization, [{ name: org.name, title: org.title, count: 1 }]);
    t.false(res.body.facets.tags.some((f: { name: string }) => f.name === draftTag));
    t.false(res.body.facets.license_id.some((f: { name: string }) => f.name === 'draft-only-licence'));
    t.false(names(await list(t, `q=${w}&limit=100`, auth)).includes(draft.name));
    t.is((await list(t, `tags=${draftTag}`, auth)).body.count, 0);
  }
});

// --- facets ----------------------------------------------------------------------------------------

test('facets: shape, counted over the whole filtered set, never counting unseen private datasets', async (t) => {
  const org = await orgWithRoles(t);
  const [g1, g2] = [await category(t), await category(t)];
  const [ta, tb] = [unique('fta'), unique('ftb')];
  const [fx, fy] = [unique('ffx').replace('-', ''), unique('ffy').replace('-', '')];
  await createActive(t, org, {
    tags: [ta, tb],
    groups: [g1.name],
    licenseId: 'mit',
    resources: [link('1', fx), link('2', fx), link('3', fy)],
  });
  await createActive(t, org, { tags: [ta], groups: [g1.name, g2.name], licenseId: 'cc-by-4.0', resources: [link('1', fx)] });
  await createActive(t, org, { tags: [ta], licenseId: 'cc-by-4.0' });
  await createActive(t, org, { tags: [ta, tb], groups: [g2.name], licenseId: 'odbl', private: true, resources: [link('1', fy)] });

  const res = await list(t, `organization=${org.name}&include_facets&limit=1`, anonymous);
  t.is(res.body.count, 3);
  t.is(res.body.results.length, 1);
  t.deepEqual(Object.keys(res.body.facets).sort(), [
    'access_level',
    'frequency',
    'groups',
    'language',
    'license_id',
    'organization',
    'publisher',
    'res_format',
    'tags',
    'theme',
  ]);
  const f = res.body.facets;
  t.deepEqual(f.organization, [{ name: org.name, title: org.title, count: 3 }]);
  t.deepEqual(f.groups, [
    { name: g1.name, title: g1.title, count: 2 },
    { name: g2.name, title: g2.title, count: 1 },
  ]);
  t.deepEqual(f.tags, [
    { name: ta, count: 3 },
    { name: tb, count: 1 },
  ]);
  t.deepEqual(f.res_format, [
    { name: fx.toUpperCase(), count: 2 },
    { name: fy.toUpperCase(), count: 1 },
  ]);
  t.deepEqual(f.license_id, [
    { name: 'cc-by-4.0', count: 2 },
    { name: 'mit', count: 1 },
  ]);

  // Outsiders asking for private datasets still do not have them counted; a member does.
  const outsider = await list(t, `organization=${org.name}&include_facets&private&limit=1`, as(people.plain));
  t.is(outsider.body.count, 3);
  t.deepEqual(outsider.body.facets, f);
  const member = await list(t, `organization=${org.name}&include_facets&private&limit=1`, as(people.member));
  t.is(member.body.count, 4);
  t.deepEqual(member.body.facets.organization, [{ name: org.name, title: org.title, count: 4 }]);
  t.deepEqual(member.body.facets.tags, [
    { name: ta, count: 4 },
    { name: tb, count: 2 },
  ]);
  t.deepEqual(
    member.body.facets.groups.map((g: { count: number }) => g.count),
    [2, 2],
  );
  t.deepEqual(member.body.facets.res_format, [
    { name: fx.toUpperCase(), count: 2 },
    { name: fy.toUpperCase(), count: 2 },
  ]);
  t.true(member.body.facets.license_id.some((l: { name: string; count: number }) => l.name === 'odbl' && l.count === 1));

  // Facets follow the other filters.
  const filtered = await list(t, `organization=${org.name}&tags=${tb}&include_facets`, anonymous);
  t.is(filtered.body.count, 1);
  t.deepEqual(filtered.body.facets.tags, [
    { name: ta, count: 1 },
    { name: tb, count: 1 },
  ]);
  // No facets unless asked.
  t.false('facets' in (await list(t, `organization=${org.name}`)).body);
});

// --- keyword search --------------------------------------------------------------------------------

test('search finds a dataset by a title word, a tag, a notes word and a resource name word; meta says semantic unavailable', async (t) => {
  const org = await orgWithRoles(t);
  const [inTitle, inTag, inNotes, inResource, inResourceDescription] = [word(), word(), word(), word(), word()];
  const d = await createActive(t, org, {
    title: `Rainfall ${inTitle} records`,
    tags: [inTag],
    notes: `Collected by volunteers near ${inNotes} station.`,
    resources: [link(`Monthly ${inResource} totals`, 'csv', { description: `see ${inResourceDescription}` })],
  });
  for (const w of [inTitle, inTag, inNotes, inResource, inResourceDescription]) {
    const res = await list(t, `q=${w}`);
    t.deepEqual(names(res), [d.name], w);
    t.deepEqual(res.body.meta, { semantic: 'unavailable' });
  }
  t.deepEqual((await list(t, `q=${inTitle}&semantic=false`)).body.meta, { semantic: 'off' });
  t.false('meta' in (await list(t, `organization=${org.name}`)).body);
  t.is((await list(t, `q=${word()}`)).body.count, 0);
});

test('search relevance: a title match ranks above a notes-only match', async (t) => {
  const org = await orgWithRoles(t);
  const w = word();
  const notesOnly = await createActive(t, org, { title: 'Unrelated things', notes: `This mentions ${w} once.` });
  const titled = await createActive(t, org, { title: `${w} survey` });
  const res = await list(t, `q=${w}`);
  t.deepEqual(names(res), [titled.name, notesOnly.name]);
  t.is(res.body.count, 2);
  // An explicit sort overrides relevance.
  t.deepEqual(names(await list(t, `q=${w}&sort_by=created&sort_order=asc`)), [notesOnly.name, titled.name]);
});

test('search: websearch syntax — quoted phrase, -exclusion and or', async (t) => {
  const org = await orgWithRoles(t);
  const [w, u, v] = [word(), word(), word()];
  const redApple = await createActive(t, org, { title: `${w} red apple green pear` });
  const greenApple = await createActive(t, org, { title: `${w} green apple red pear` });
  const withU = await createActive(t, org, { title: `${w} harvest`, notes: `about ${u}` });
  const withV = await createActive(t, org, { title: `Orchard ${v}` });

  const q = (s: string) => list(t, `q=${encodeURIComponent(s)}&sort_by=name`);
  t.deepEqual(names(await q(`${w} red apple`)), [redApple.name, greenApple.name].sort());
  t.deepEqual(names(await q(`${w} "red apple"`)), [redApple.name]);
  t.deepEqual(names(await q(`${w} -pear`)), [withU.name]);
  t.deepEqual(names(await q(`${w} -${u}`)), [redApple.name, greenApple.name].sort());
  t.deepEqual(names(await q(`${u} or ${v}`)), [withU.name, withV.name].sort());
});

test('search is accent-insensitive both ways', async (t) => {
  const org = await orgWithRoles(t);
  const w = word();
  const accented = await createActive(t, org, { title: `Montréal ${w} cycling counts` });
  const plain = await createActive(t, org, { title: `Quebec ${w} cafe openings` });
  t.deepEqual(names(await list(t, `q=${encodeURIComponent(`Montreal ${w}`)}`)), [accented.name]);
  t.deepEqual(names(await list(t, `q=${encodeURIComponent(`Montréal ${w}`)}`)), [accented.name]);
  t.deepEqual(names(await list(t, `q=${encodeURIComponent(`Québec ${w} café`)}`)), [plain.name]);
});

test('search: a typo in a title word still finds the dataset', async (t) => {
  const org = await orgWithRoles(t);
  const d = await createActive(t, org, { title: 'Climate normals of the valley' });
  t.true(names(await list(t, `q=climte&organization=${org.name}`)).includes(d.name));
  t.true(names(await list(t, `q=normls&organization=${org.name}`)).includes(d.name));
  t.deepEqual(names(await list(t, `q=${word()}&organization=${org.name}`)), []);
  // Every word of a plain query must still match: a typo among right words finds it, a stranger does not;
  // stop words are no obstacle.
  t.deepEqual(names(await list(t, `q=${encodeURIComponent('climte valley')}&organization=${org.name}`)), [d.name]);
  t.deepEqual(names(await list(t, `q=${encodeURIComponent(`climte ${word()}`)}&organization=${org.name}`)), []);
  t.deepEqual(names(await list(t, `q=${encodeURIComponent('the climate of a valley')}&organization=${org.name}`)), [d.name]);
});

test('search: a private dataset never appears for outsiders, and a draft never appears', async (t) => {
  const org = await orgWithRoles(t);
  const w = word();
  const priv = await createActive(t, org, { title: `Hidden ${w} payroll`, private: true });
  const draft = await createDraft(t, as(people.editor), { ownerOrg: org.name, title: `Draft ${w} payroll`, licenseId: 'mit' });
  for (const auth of [anonymous, as(people.plain), as(people.otherEditor)]) {
    for (const flag of ['', '&private']) t.is((await list(t, `q=${w}${flag}`, auth)).body.count, 0);
  }
  t.deepEqual(names(await list(t, `q=${w}&private`, as(people.member))), [priv.name]);
  t.deepEqual(names(await list(t, `q=${w}&private`, app.sysadmin)), [priv.name]);
  t.false(names(await list(t, `q=${w}&private`, as(people.editor))).includes(draft.name));
});

test('search documents are kept current: update, soft delete, restore, new resource', async (t) => {
  const org = await orgWithRoles(t);
  const [oldWord, newWord, resWord] = [word(), word(), word()];
  const d = await createActive(t, org, { title: `Bridges ${oldWord}` });
  t.deepEqual(names(await list(t, `q=${oldWord}`)), [d.name]);

  const put = await app.api.put(
    `${PKG}/${d.name}`,
    { name: d.name, ownerOrg: org.name, licenseId: 'cc-by-4.0', title: `Tunnels ${newWord}` },
    as(people.editor),
  );
  t.is(put.status, 200, put.text);
  t.deepEqual(names(await list(t, `q=${newWord}`)), [d.name]);
  t.deepEqual(names(await list(t, `q=${oldWord}`)), []);

  t.is((await app.api.delete(`${PKG}/${d.name}`, as(people.editor))).status, 204);
  t.deepEqual(names(await list(t, `q=${newWord}`)), []);
  t.deepEqual(names(await list(t, `q=${newWord}&private`, app.sysadmin)), []);
  const restored = await app.api.post(`${PKG}/${d.name}/restore`, undefined, app.sysadmin);
  t.is(restored.status, 200, restored.text);
  t.deepEqual(names(await list(t, `q=${newWord}`)), [d.name]);

  const res = await app.api.post(`${PKG}/${d.id}/resources`, link(`Inspection ${resWord} report`), as(people.editor));
  t.is(res.status, 201, res.text);
  t.deepEqual(names(await list(t, `q=${resWord}`)), [d.name]);
});
