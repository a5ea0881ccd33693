import test from 'ava';
import { isProblem } from '../helpers/problem.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import type { Reply } from '../helpers/client.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => app?.stop());

/** Registers with a display name and an email that shares nothing with the username; returns a token. */
async function newPerson(username: string, displayName: string, email: string) {
  const reg = await app.api.post('/api/v1/auth/register', { username, email, password: 'password-123', displayName });
  if (reg.status !== 201) throw new Error(`register ${username}: ${reg.status} ${reg.text}`);
  const { cookie } = await app.api.login(username, 'password-123');
  const token = await app.api.post('/api/v1/api-tokens', { name: 't' }, { cookie });
  return { id: reg.body.id as string, username, cookie, token: token.body.token as string };
}

const search = (q: string, token: string) => app.api.get(`/api/v1/users?q=${encodeURIComponent(q)}`, { token });
const usernames = (res: Reply) => res.body.results.map((u: { username: string }) => u.username).sort();

// ---- /users/me ----

test('GET /users/me is 401 anonymous', async (t) => {
  isProblem(t, await app.api.get('/api/v1/users/me'), 401, 'unauthenticated');
  isProblem(t, await app.api.get('/api/v1/users/me/organizations'), 401, 'unauthenticated');
});

test('GET /users/me returns the caller with their email, by token and by cookie', async (t) => {
  const user = await newPerson('me-ada', 'Ada Lovelace', 'ada.l@example.org');
  const expected = {
    id: user.id,
    username: 'me-ada',
    email: 'ada.l@example.org',
    displayName: 'Ada Lovelace',
    sysadmin: false,
    state: 'active',
  };
  const byToken = await app.api.get('/api/v1/users/me', { token: user.token });
  t.is(byToken.status, 200);
  t.like(byToken.body, expected);
  t.false('passwordHash' in byToken.body);
  t.false('password' in byToken.body);
  const byCookie = await app.api.get('/api/v1/users/me', { cookie: user.cookie });
  t.deepEqual(byCookie.body, byToken.body);

  const admin = await app.api.get('/api/v1/users/me', { token: app.adminToken });
  t.like(admin.body, { username: 'root', sysadmin: true });
});

// ---- /users/me/organizations ----

test('GET /users/me/organizations lists the caller’s organizations with their role', async (t) => {
  const user = await newPerson('orgs-bea', 'Bea', 'bea-x@example.org');
  const stranger = await newPerson('orgs-cy', 'Cy', 'cy-x@example.org');
  const admin = { token: app.adminToken };

  for (const name of ['orgs-alpha', 'orgs-beta', 'orgs-gamma']) {
    const org = await app.api.post('/api/v1/organizations', { name, title: name.toUpperCase() }, admin);
    t.is(org.status, 201, org.text);
  }
  t.is((await app.api.post('/api/v1/organizations/orgs-beta/members', { user: user.id, role: 'editor' }, admin)).status, 201);
  t.is((await app.api.post('/api/v1/organizations/orgs-alpha/members', { user: 'orgs-bea', role: 'admin' }, admin)).status, 201);
  // A category membership is not an organization.
  t.is((await app.api.post('/api/v1/groups', { name: 'orgs-cat' }, admin)).status, 201);
  t.is((await app.api.post('/api/v1/groups/orgs-cat/members', { user: user.id, role: 'member' }, admin)).status, 201);

  const mine = await app.api.get('/api/v1/users/me/organizations', { token: user.token });
  t.is(mine.status, 200, mine.text);
  t.like(mine.body, { count: 2, offset: 0, limit: 20 });
  t.deepEqual(
    mine.body.results.map((o: { name: string; title: string; role: string }) => [o.name, o.title, o.role]),
    [
      ['orgs-alpha', 'ORGS-ALPHA', 'admin'],
      ['orgs-beta', 'ORGS-BETA', 'editor'],
    ],
  );
  t.regex(mine.body.results[0].id, /^[0-9a-f-]{36}$/);

  const paged = await app.api.get('/api/v1/users/me/organizations?limit=1&offset=1', { cookie: user.cookie });
  t.like(paged.body, { count: 2, offset: 1, limit: 1 });
  t.deepEqual(
    paged.body.results.map((o: { name: string }) => o.name),
    ['orgs-beta'],
  );

  const none = await app.api.get('/api/v1/users/me/organizations', { token: stranger.token });
  t.deepEqual(none.body, { count: 0, offset: 0, limit: 20, results: [] });

  // A deleted organization is not listed.
  t.is((await app.api.delete('/api/v1/organizations/orgs-beta', admin)).status, 204);
  const after = await app.api.get('/api/v1/users/me/organizations', { token: user.token });
  t.deepEqual(
    after.body.results.map((o: { name: string }) => o.name),
    ['orgs-alpha'],
  );
  t.is(after.body.count, 1);
});

// ---- /users?q= ----

test('GET /users needs authentication', async (t) => {
  isProblem(t, await app.api.get('/api/v1/users?q=root'), 401, 'unauthenticated');
  isProblem(t, await app.api.get('/api/v1/users'), 401, 'unauthenticated');
});

test('GET /users?q= finds users by a username or display-name fragment, without emails', async (t) => {
  const finder = await newPerson('find-er', 'Finder', 'finder-x@example.org');
  await newPerson('zork-dora', 'Dora Quux', 'dora-private@example.org');
  await newPerson('zork-eli', 'Eli Marmalade', 'eli-private@example.org');
  await newPerson('other-fox', 'Fox Zorkington', 'fox-private@example.org');

  const byUsername = await search('zork-', finder.token);
  t.is(byUsername.status, 200);
  t.deepEqual(usernames(byUsername), ['zork-dora', 'zork-eli']);
  t.like(byUsername.body, { count: 2, offset: 0, limit: 20 });

  // Case-insensitive, over username and display name together.
  t.deepEqual(usernames(await search('ZORK', finder.token)), ['other-fox', 'zork-dora', 'zork-eli']);
  t.deepEqual(usernames(await search('marmal', finder.token)), ['zork-eli']);

  const rows = (await search('zork', finder.token)).body.results;
  for (const row of rows) {
    t.deepEqual(Object.keys(row).sort(), ['displayName', 'id', 'username']);
  }
  const dora = rows.find((r: { username: string }) => r.username === 'zork-dora');
  t.is(dora.displayName, 'Dora Quux');
  t.regex(dora.id, /^[0-9a-f-]{36}$/);

  // Emails are neither shown nor searchable here.
  const byEmail = await search('dora-private', finder.token);
  t.deepEqual(byEmail.body.results, []);
  t.false((await search('zork', finder.token)).text.includes('@'));

  // LIKE wildcards are plain characters.
  t.deepEqual((await search('%', finder.token)).body.results, []);
  t.deepEqual((await search('zork_', finder.token)).body.results, []);

  // Paging over the results.
  const page = await app.api.get('/api/v1/users?q=zork&limit=2&offset=1', { token: finder.token });
  t.like(page.body, { count: 3, offset: 1, limit: 2 });
  t.is(page.body.results.length, 2);
});

test('GET /users?q= works with a session cookie too', async (t) => {
  const user = await newPerson('cookie-gwen', 'Gwen Cookie', 'gwen-x@example.org');
  const res = await app.api.get('/api/v1/users?q=gwen', { cookie: user.cookie });
  t.is(res.status, 200);
  t.deepEqual(usernames(res), ['cookie-gwen']);
});

test('GET /users?q= does not find deleted users', async (t) => {
  const finder = await newPerson('find-hugo', 'Hugo', 'hugo-x@example.org');
  const gone = await newPerson('vanish-iris', 'Iris Vanish', 'iris-x@example.org');
  t.deepEqual(usernames(await search('vanish', finder.token)), ['vanish-iris']);

  t.is((await app.api.delete(`/api/v1/admin/users/${gone.id}`, { token: app.adminToken })).status, 204);
  const after = await search('vanish', finder.token);
  t.is(after.status, 200);
  t.deepEqual(after.body.results, []);
  t.is(after.body.count, 0);
  t.deepEqual((await search('Iris Vanish', finder.token)).body.results, []);
});
