import { randomUUID } from 'node:crypto';
import test from 'ava';
import { ADMIN, startTestApp, until, type TestApp } from '../helpers/app.ts';
import { isProblem } from '../helpers/problem.ts';
import type { Reply } from '../helpers/client.ts';
import { onlySysadmins, type Call } from '../helpers/access.ts';

let app: TestApp;
let rootId: string;
test.before(async () => {
  app = await startTestApp();
  rootId = (await app.api.get('/api/v1/users/me', { token: app.adminToken })).body.id;
});
test.after.always(async () => app?.stop());

const paths = (res: Reply) => (res.body.errors ?? []).map((e: { path: string }) => e.path).sort();

const admin = () => ({ token: app.adminToken });
const adminCreate = (body: Record<string, unknown>) => app.api.post('/api/v1/admin/users', body, admin());
const newAccount = (username: string, extra: Record<string, unknown> = {}) =>
  adminCreate({ username, email: `${username}@example.org`, password: 'password-123', ...extra });
const list = (query: string) => app.api.get(`/api/v1/admin/users?${query}`, admin());
const names = (res: Reply) => res.body.results.map((u: { username: string }) => u.username).sort();

/** Creates a sysadmin through the API and returns a bearer token for them. */
async function newSysadmin(username: string) {
  const created = await newAccount(username, { sysadmin: true });
  if (created.status !== 201) throw new Error(`create ${username}: ${created.status} ${created.text}`);
  const { cookie } = await app.api.login(username, 'password-123');
  const token = await app.api.post('/api/v1/api-tokens', { name: 't' }, { cookie });
  return { id: created.body.id as string, token: token.body.token as string };
}

// ---- serial: these depend on exactly who is sysadmin, so they run before the concurrent tests ----

test.serial('the last active sysadmin can be neither deleted nor demoted (409)', async (t) => {
  isProblem(t, await app.api.delete(`/api/v1/admin/users/${rootId}`, admin()), 409, 'conflict');
  isProblem(t, await app.api.patch(`/api/v1/admin/users/${rootId}`, { sysadmin: false }, admin()), 409, 'conflict');
  const me = await app.api.get('/api/v1/users/me', admin());
  t.like(me.body, { sysadmin: true, state: 'active' });

  // With a second sysadmin either may be demoted or deleted...
  const second = await newSysadmin('last-second');
  const demoted = await app.api.patch(`/api/v1/admin/users/${second.id}`, { sysadmin: false }, admin());
  t.is(demoted.status, 200, demoted.text);
  t.is(demoted.body.sysadmin, false);
  t.is((await app.api.patch(`/api/v1/admin/users/${second.id}`, { sysadmin: true }, admin())).status, 200);
  t.is((await app.api.delete(`/api/v1/admin/users/${second.id}`, admin())).status, 204);

  // ...but a deleted sysadmin does not count as another one.
  isProblem(t, await app.api.delete(`/api/v1/admin/users/${rootId}`, admin()), 409, 'conflict');
  isProblem(t, await app.api.patch(`/api/v1/admin/users/${rootId}`, { sysadmin: false }, admin()), 409, 'conflict');
  t.is((await app.api.get('/api/v1/admin/users/stats', admin())).body.sysadmins, 1);
});

test.serial('two sysadmins demoting each other at once cannot leave the site without one', async (t) => {
  // Hand the site to two fresh sysadmins, so that root is not one of the two racing.
  const a = await newSysadmin('race-a');
  const b = await newSysadmin('race-b');
  t.is((await app.api.patch(`/api/v1/admin/users/${rootId}`, { sysadmin: false }, { token: a.token })).status, 200);
  try {
    for (let round = 0; round < 5; round++) {
      const [ab, ba] = await Promise.all([
        app.api.patch(`/api/v1/admin/users/${b.id}`, { sysadmin: false }, { token: a.token }),
        app.api.patch(`/api/v1/admin/users/${a.id}`, { sysadmin: false }, { token: b.token }),
      ]);
      const stats = await app.api.get('/api/v1/admin/users/stats', { token: ab.status === 200 ? a.token : b.token });
      t.false(ab.status === 200 && ba.status === 200, `round ${round}: both demotions succeeded`);
      t.is(stats.body.sysadmins, 1, `round ${round}`);
      // Put both back for the next round.
      const survivor = ab.status === 200 ? a : b;
      const demotedId = ab.status === 200 ? b.id : a.id;
      t.is((await app.api.patch(`/api/v1/admin/users/${demotedId}`, { sysadmin: true }, { token: survivor.token })).status, 200);
    }
    for (let round = 0; round < 3; round++) {
      const [ab, ba] = await Promise.all([
        app.api.delete(`/api/v1/admin/users/${b.id}`, { token: a.token }),
        app.api.delete(`/api/v1/admin/users/${a.id}`, { token: b.token }),
      ]);
      t.false(ab.status === 204 && ba.status === 204, `delete round ${round}: both deletions succeeded`);
      if (ab.status !== 204 && ba.status !== 204) continue;
      // The one left restores the other, who needs a new token since deletion revoked the old one.
      const survivor = ab.status === 204 ? a : b;
      const deleted = ab.status === 204 ? b : a;
      t.is((await app.api.post(`/api/v1/admin/users/${deleted.id}/restore`, undefined, { token: survivor.token })).status, 200);
      const login = await app.api.login(deleted === a ? 'race-a' : 'race-b', 'password-123');
      deleted.token = (await app.api.post('/api/v1/api-tokens', { name: 't' }, { cookie: login.cookie })).body.token;
    }
  } finally {
    // Give root its flag back directly, so that a failure here cannot take the rest of the file down with it.
    await app.almanac.services.orm.em.fork().getConnection().execute('update users set sysadmin = true where id = ?', [rootId]);
    // A change by hand reaches the cached lookup of root's token through the row's NOTIFY.
    await until('root is a sysadmin again', async () => (await app.api.get('/api/v1/admin/users/stats', admin())).status === 200, 5_000);
  }
  t.like((await app.api.get('/api/v1/users/me', admin())).body, { sysadmin: true });
});

test.serial('GET /admin/users/stats counts users by state and sysadmins', async (t) => {
  const before = await app.api.get('/api/v1/admin/users/stats', admin());
  t.is(before.status, 200, before.text);
  t.deepEqual(Object.keys(before.body).sort(), ['active', 'deleted', 'sysadmins', 'total']);
  const total = (await list('limit=1')).body.count;
  const deleted = (await list('limit=1&state=deleted')).body.count;
  const sysadmins = (await list('limit=1&state=active&sysadmin=true')).body.count;
  t.deepEqual(before.body, { total, active: total - deleted, deleted, sysadmins });

  const plain = await newAccount('stats-plain');
  t.is((await newAccount('stats-super', { sysadmin: true })).status, 201);
  t.is((await app.api.delete(`/api/v1/admin/users/${plain.body.id}`, admin())).status, 204);
  const after = await app.api.get('/api/v1/admin/users/stats', admin());
  t.deepEqual(after.body, {
    total: before.body.total + 2,
    active: before.body.active + 1,
    deleted: before.body.deleted + 1,
    sysadmins: before.body.sysadmins + 1,
  });
});

// ---- access ----

test('every /admin/users endpoint is 401 anonymous and 403 for a normal user', async (t) => {
  const user = await app.api.newUser('adm-plain');
  const target = user.id;
  const calls: Call[] = [
    ['GET', '/api/v1/admin/users'],
    ['GET', '/api/v1/admin/users/stats'],
    ['POST', '/api/v1/admin/users', { username: 'adm-made', email: 'adm-made@example.org', password: 'password-123', sysadmin: true }],
    ['PATCH', `/api/v1/admin/users/${target}`, { sysadmin: true }],
    ['DELETE', `/api/v1/admin/users/${target}`],
    ['POST', `/api/v1/admin/users/${target}/restore`],
    ['POST', `/api/v1/admin/users/${target}/purge`],
  ];
  await onlySysadmins(t, app.api, calls, [{ token: user.token }, { cookie: user.cookie }]);
  // Nothing happened.
  const me = await app.api.get('/api/v1/users/me', { token: user.token });
  t.like(me.body, { sysadmin: false, state: 'active' });
  t.is((await list('q=adm-made')).body.count, 0);
});

// ---- list ----

test('GET /admin/users lists users with emails, filtered by q, state and sysadmin', async (t) => {
  const ids: Record<string, string> = {};
  for (const [username, extra] of [
    ['lst-one', { displayName: 'Needle Person' }],
    ['lst-two', { sysadmin: true }],
    ['lst-three', { email: 'haystack-mail@example.org' }],
  ] as const) {
    const res = await newAccount(username, extra);
    t.is(res.status, 201, res.text);
    ids[username] = res.body.id;
  }
  t.is((await app.api.delete(`/api/v1/admin/users/${ids['lst-three']}`, admin())).status, 204);

  const all = await list('q=lst-');
  t.is(all.status, 200, all.text);
  t.like(all.body, { count: 3, offset: 0, limit: 20 });
  t.deepEqual(names(all), ['lst-one', 'lst-three', 'lst-two']);
  const one = all.body.results.find((u: { username: string }) => u.username === 'lst-one');
  t.deepEqual(one, {
    id: ids['lst-one'],
    username: 'lst-one',
    email: 'lst-one@example.org',
    displayName: 'Needle Person',
    sysadmin: false,
    state: 'active',
    createdAt: one.createdAt,
  });
  for (const u of all.body.results) t.false('passwordHash' in u);

  t.deepEqual(names(await list('q=needle')), ['lst-one'], 'by display name');
  t.deepEqual(names(await list('q=haystack-mail')), ['lst-three'], 'by email');
  t.deepEqual(names(await list('q=lst-&state=deleted')), ['lst-three']);
  t.deepEqual(names(await list('q=lst-&state=active')), ['lst-one', 'lst-two']);
  t.deepEqual(names(await list('q=lst-&sysadmin=true')), ['lst-two']);
  t.deepEqual(names(await list('q=lst-&sysadmin=false')), ['lst-one', 'lst-three']);

  const paged = await list('q=lst-&limit=2&offset=2');
  t.like(paged.body, { count: 3, offset: 2, limit: 2 });
  t.is(paged.body.results.length, 1);

  isProblem(t, await list('state=gone'), 400, 'invalid_parameters');
  isProblem(t, await list('limit=101'), 400, 'invalid_parameters');
});

// ---- create ----

test('POST /admin/users creates a user, optionally a sysadmin who can then administer', async (t) => {
  const plain = await newAccount('mk-plain', { displayName: 'Made Plain' });
  t.is(plain.status, 201, plain.text);
  t.like(plain.body, { username: 'mk-plain', email: 'mk-plain@example.org', displayName: 'Made Plain', sysadmin: false, state: 'active' });
  t.false(plain.text.includes('password-123'));

  const boss = await newAccount('mk-boss', { sysadmin: true, email: 'MK-Boss@Example.org' });
  t.is(boss.status, 201, boss.text);
  t.like(boss.body, { username: 'mk-boss', email: 'mk-boss@example.org', sysadmin: true });

  const login = await app.api.login('mk-boss', 'password-123');
  t.is(login.status, 200);
  t.is((await app.api.get('/api/v1/admin/users', { cookie: login.cookie })).status, 200);
  const plainLogin = await app.api.login('mk-plain', 'password-123');
  t.is(plainLogin.status, 200);
  isProblem(t, await app.api.get('/api/v1/admin/users', { cookie: plainLogin.cookie }), 403, 'forbidden');
});

test('POST /admin/users: a taken username or email is 409, bad fields 422', async (t) => {
  t.is((await newAccount('mk-dup')).status, 201);
  const sameName = await adminCreate({ username: 'mk-dup', email: 'mk-dup-2@example.org', password: 'password-123' });
  isProblem(t, sameName, 409, 'conflict');
  t.deepEqual(paths(sameName), ['username']);
  const sameEmail = await adminCreate({ username: 'mk-dup-2', email: 'MK-DUP@example.org', password: 'password-123' });
  isProblem(t, sameEmail, 409, 'conflict');
  t.deepEqual(paths(sameEmail), ['email']);

  const bad = await adminCreate({ username: 'Bad Name', email: 'nope', password: 'short', sysadmin: 'yes', role: 'x' });
  isProblem(t, bad, 422, 'validation_failed');
  t.deepEqual(paths(bad), ['email', 'password', 'role', 'sysadmin', 'username']);
});

// ---- update ----

test('PATCH /admin/users/{id} changes display name and email', async (t) => {
  const created = await newAccount('pt-ann', { displayName: 'Ann' });
  const id = created.body.id;
  const res = await app.api.patch(`/api/v1/admin/users/${id}`, { displayName: 'Ann Patched', email: 'Ann.New@Example.org' }, admin());
  t.is(res.status, 200, res.text);
  t.like(res.body, { id, username: 'pt-ann', displayName: 'Ann Patched', email: 'ann.new@example.org', sysadmin: false });
  t.like((await list('q=pt-ann')).body.results[0], { displayName: 'Ann Patched', email: 'ann.new@example.org' });

  // The new email logs in; the old one no longer does.
  t.is((await app.api.post('/api/v1/auth/login', { email: 'ann.new@example.org', password: 'password-123' })).status, 200);
  isProblem(
    t,
    await app.api.post('/api/v1/auth/login', { email: 'pt-ann@example.org', password: 'password-123' }),
    401,
    'invalid_credentials',
  );

  const cleared = await app.api.patch(`/api/v1/admin/users/${id}`, { displayName: null }, admin());
  t.is(cleared.status, 200);
  t.is(cleared.body.displayName, null);
  t.is(cleared.body.email, 'ann.new@example.org', 'an absent field is left alone');
});

test('PATCH /admin/users/{id} sysadmin flag takes effect on the user’s very next request', async (t) => {
  const user = await app.api.newUser('pt-ben');
  isProblem(t, await app.api.get('/api/v1/admin/users', { token: user.token }), 403, 'forbidden');

  const up = await app.api.patch(`/api/v1/admin/users/${user.id}`, { sysadmin: true }, admin());
  t.is(up.status, 200, up.text);
  t.is(up.body.sysadmin, true);
  t.is((await app.api.get('/api/v1/admin/users', { token: user.token })).status, 200);
  t.is((await app.api.get('/api/v1/admin/users/stats', { cookie: user.cookie })).status, 200);
  t.like((await app.api.get('/api/v1/users/me', { token: user.token })).body, { sysadmin: true });

  const down = await app.api.patch(`/api/v1/admin/users/${user.id}`, { sysadmin: false }, admin());
  t.is(down.status, 200);
  isProblem(t, await app.api.get('/api/v1/admin/users', { token: user.token }), 403, 'forbidden');
});

test('PATCH /admin/users/{id}: unknown field 422, taken email 409, unknown user 404', async (t) => {
  const created = await newAccount('pt-cal');
  const other = await newAccount('pt-cal-other');
  const id = created.body.id;

  const unknownField = await app.api.patch(`/api/v1/admin/users/${id}`, { username: 'renamed' }, admin());
  isProblem(t, unknownField, 422, 'validation_failed');
  t.deepEqual(paths(unknownField), ['username']);
  const badEmail = await app.api.patch(`/api/v1/admin/users/${id}`, { email: 'not-an-email', sysadmin: 'true' }, admin());
  isProblem(t, badEmail, 422, 'validation_failed');
  t.deepEqual(paths(badEmail), ['email', 'sysadmin']);

  const taken = await app.api.patch(`/api/v1/admin/users/${id}`, { email: other.body.email.toUpperCase() }, admin());
  isProblem(t, taken, 409, 'conflict');
  t.deepEqual(paths(taken), ['email']);
  // Setting one's own current email is not a conflict.
  t.is((await app.api.patch(`/api/v1/admin/users/${id}`, { email: 'pt-cal@example.org' }, admin())).status, 200);

  isProblem(t, await app.api.patch(`/api/v1/admin/users/${randomUUID()}`, { displayName: 'x' }, admin()), 404, 'not_found');
  isProblem(t, await app.api.patch('/api/v1/admin/users/pt-cal', { displayName: 'x' }, admin()), 404, 'not_found');
  isProblem(t, await app.api.delete(`/api/v1/admin/users/${randomUUID()}`, admin()), 404, 'not_found');
  isProblem(t, await app.api.post(`/api/v1/admin/users/${randomUUID()}/restore`, undefined, admin()), 404, 'not_found');
  isProblem(t, await app.api.post(`/api/v1/admin/users/${randomUUID()}/purge`, undefined, admin()), 404, 'not_found');
});

test('PATCH /admin/users/{id} password: the new one logs in and old sessions end', async (t) => {
  const user = await app.api.newUser('pt-dot');
  const res = await app.api.patch(`/api/v1/admin/users/${user.id}`, { password: 'brand-new-pass-1' }, admin());
  t.is(res.status, 200, res.text);
  t.false(res.text.includes('brand-new-pass-1'));
  isProblem(t, await app.api.get('/api/v1/users/me', { cookie: user.cookie }), 401, 'unauthenticated');
  isProblem(t, await app.api.login('pt-dot', 'password-123'), 401, 'invalid_credentials');
  t.is((await app.api.login('pt-dot', 'brand-new-pass-1')).status, 200);
});

// ---- delete, restore, purge ----

test('DELETE /admin/users/{id} soft-deletes: token and cookie fail on the very next request, login fails', async (t) => {
  const user = await app.api.newUser('del-eve');
  t.is((await app.api.get('/api/v1/users/me', { token: user.token })).status, 200);
  t.is((await app.api.get('/api/v1/users/me', { cookie: user.cookie })).status, 200);

  const res = await app.api.delete(`/api/v1/admin/users/${user.id}`, admin());
  t.is(res.status, 204, res.text);

  isProblem(t, await app.api.get('/api/v1/users/me', { token: user.token }), 401, 'invalid_token');
  isProblem(t, await app.api.get('/api/v1/users/me', { cookie: user.cookie }), 401, 'unauthenticated');
  isProblem(t, await app.api.post('/api/v1/api-tokens', { name: 'x' }, { cookie: user.cookie }), 401, 'unauthenticated');
  isProblem(t, await app.api.login('del-eve', user.password), 401, 'invalid_credentials');

  const row = (await list('q=del-eve')).body.results[0];
  t.like(row, { id: user.id, state: 'deleted' });
});

test('restore: the user can log in again, but old tokens and sessions stay revoked', async (t) => {
  const user = await app.api.newUser('del-fred');
  t.is((await app.api.delete(`/api/v1/admin/users/${user.id}`, admin())).status, 204);

  const restored = await app.api.post(`/api/v1/admin/users/${user.id}/restore`, undefined, admin());
  t.is(restored.status, 200, restored.text);
  t.like(restored.body, { id: user.id, username: 'del-fred', state: 'active', email: 'del-fred@example.org' });

  const login = await app.api.login('del-fred', user.password);
  t.is(login.status, 200, login.text);
  t.is((await app.api.get('/api/v1/users/me', { cookie: login.cookie })).status, 200);

  isProblem(t, await app.api.get('/api/v1/users/me', { token: user.token }), 401, 'invalid_token');
  isProblem(t, await app.api.get('/api/v1/users/me', { cookie: user.cookie }), 401, 'unauthenticated');
  const tokens = await app.api.get('/api/v1/api-tokens', { cookie: login.cookie });
  t.is(tokens.body.count, 0, 'the revoked token is not listed');
});

test('purge: 409 while active; after delete 204, then gone (404) and the name is free again', async (t) => {
  const user = await app.api.newUser('purge-gil');
  isProblem(t, await app.api.post(`/api/v1/admin/users/${user.id}/purge`, undefined, admin()), 409, 'conflict');
  t.is((await app.api.get('/api/v1/users/me', { token: user.token })).status, 200, 'a refused purge changes nothing');

  t.is((await app.api.delete(`/api/v1/admin/users/${user.id}`, admin())).status, 204);
  const purged = await app.api.post(`/api/v1/admin/users/${user.id}/purge`, undefined, admin());
  t.is(purged.status, 204, purged.text);

  isProblem(t, await app.api.post(`/api/v1/admin/users/${user.id}/purge`, undefined, admin()), 404, 'not_found');
  isProblem(t, await app.api.post(`/api/v1/admin/users/${user.id}/restore`, undefined, admin()), 404, 'not_found');
  isProblem(t, await app.api.patch(`/api/v1/admin/users/${user.id}`, { displayName: 'x' }, admin()), 404, 'not_found');
  isProblem(t, await app.api.delete(`/api/v1/admin/users/${user.id}`, admin()), 404, 'not_found');
  t.is((await list('q=purge-gil')).body.count, 0);
  isProblem(t, await app.api.get('/api/v1/users/me', { token: user.token }), 401, 'invalid_token');

  const again = await app.api.post('/api/v1/auth/register', {
    username: 'purge-gil',
    email: 'purge-gil@example.org',
    password: 'password-456',
  });
  t.is(again.status, 201, again.text);
  t.not(again.body.id, user.id);
  t.is((await app.api.login('purge-gil', 'password-456')).status, 200);
});

test('a sysadmin may delete another sysadmin, whose token then fails at once', async (t) => {
  const other = await newSysadmin('del-sys');
  t.is((await app.api.get('/api/v1/admin/users/stats', { token: other.token })).status, 200);
  t.is((await app.api.delete(`/api/v1/admin/users/${other.id}`, admin())).status, 204);
  isProblem(t, await app.api.get('/api/v1/admin/users/stats', { token: other.token }), 401, 'invalid_token');
  t.like((await app.api.get('/api/v1/users/me', admin())).body, { username: ADMIN.username, sysadmin: true });
});
