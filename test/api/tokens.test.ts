import { createHash } from 'node:crypto';
import test from 'ava';
import { isProblem } from '../helpers/problem.ts';
import { startTestApp, until, type TestApp } from '../helpers/app.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => app?.stop());

const DAY = 86400_000;
const sql = (query: string, params: unknown[] = []) => app.almanac.services.orm.em.fork().getConnection().execute(query, params);

const createToken = (auth: { token?: string; cookie?: string }, body: unknown = { name: 'ci' }) =>
  app.api.post('/api/v1/api-tokens', body, auth);

test('create: 201 with id, a one-time secret, name and a 90-day expiry by default', async (t) => {
  const user = await app.api.newUser('tok-ann');
  const before = Date.now();
  const res = await createToken({ cookie: user.cookie }, { name: 'laptop' });
  t.is(res.status, 201, res.text);
  t.regex(res.body.id, /^tok_[0-9A-Za-z]+$/);
  t.regex(res.body.token, /^alm_[0-9A-Za-z]{46}$/);
  t.is(res.body.name, 'laptop');
  const expiresAt = Date.parse(res.body.expiresAt);
  t.regex(res.body.expiresAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/, 'ISO 8601 UTC');
  t.true(Math.abs(expiresAt - (before + 90 * DAY)) < 60_000, `expiresAt ${res.body.expiresAt}`);

  // The secret works as a bearer token for this user.
  const me = await app.api.get('/api/v1/users/me', { token: res.body.token });
  t.is(me.status, 200);
  t.is(me.body.username, 'tok-ann');

  // Two tokens never share an id or a secret.
  const other = await createToken({ cookie: user.cookie }, { name: 'laptop' });
  t.is(other.status, 201);
  t.not(other.body.id, res.body.id);
  t.not(other.body.token, res.body.token);
});

test('create with expiresInDays sets the expiry; a bearer token can create tokens', async (t) => {
  const user = await app.api.newUser('tok-ben');
  for (const days of [1, 30, 365]) {
    const before = Date.now();
    const res = await createToken({ token: user.token }, { name: `d${days}`, expiresInDays: days });
    t.is(res.status, 201, res.text);
    t.true(Math.abs(Date.parse(res.body.expiresAt) - (before + days * DAY)) < 60_000, `${days}: ${res.body.expiresAt}`);
  }
});

test('create: an expiry outside 1–365 whole days, or a missing name, is 422 naming the field', async (t) => {
  const user = await app.api.newUser('tok-cat');
  for (const expiresInDays of [0, 366, 1.5, -1, '30', null]) {
    const res = await createToken({ token: user.token }, { name: 'bad', expiresInDays });
    isProblem(t, res, 422, 'validation_failed');
    t.deepEqual(
      res.body.errors.map((e: { path: string }) => e.path),
      ['expiresInDays'],
      `expiresInDays ${expiresInDays}`,
    );
  }
  for (const body of [{}, { name: '' }, { name: '   ' }, { name: 'x'.repeat(201) }]) {
    const res = await createToken({ token: user.token }, body);
    isProblem(t, res, 422, 'validation_failed');
    t.deepEqual(
      res.body.errors.map((e: { path: string }) => e.path),
      ['name'],
      JSON.stringify(body),
    );
  }
  const extra = await createToken({ token: user.token }, { name: 'x', scope: 'all' });
  isProblem(t, extra, 422, 'validation_failed');
  t.deepEqual(
    extra.body.errors.map((e: { path: string }) => e.path),
    ['scope'],
  );

  // None of the refused requests made a token.
  const list = await app.api.get('/api/v1/api-tokens', { token: user.token });
  t.is(list.body.count, 1);
});

test('only a SHA-256 hash of the secret is stored', async (t) => {
  const user = await app.api.newUser('tok-dee');
  const res = await createToken({ token: user.token }, { name: 'hashed' });
  const rows = (await sql('select * from api_tokens where id = ?', [res.body.id])) as Record<string, unknown>[];
  t.is(rows.length, 1);
  const row = rows[0];
  t.is(row.secret_hash, createHash('sha256').update(res.body.token).digest('hex'));
  t.false(JSON.stringify(row).includes(res.body.token.slice(4)), 'no column holds the secret');
});

test('list: the caller’s own tokens, without secrets', async (t) => {
  const user = await app.api.newUser('tok-eve');
  const other = await app.api.newUser('tok-eve-other');
  const created = await createToken({ token: user.token }, { name: 'listed', expiresInDays: 7 });

  const list = await app.api.get('/api/v1/api-tokens', { token: user.token });
  t.is(list.status, 200);
  t.like(list.body, { count: 2, offset: 0, limit: 20 });
  t.is(list.body.results.length, 2);
  const row = list.body.results.find((r: { id: string }) => r.id === created.body.id);
  t.like(row, { id: created.body.id, name: 'listed', expiresAt: created.body.expiresAt });
  t.false('token' in row);
  for (const r of list.body.results) t.false('token' in r);
  t.false(list.text.includes(created.body.token));
  t.false(list.text.includes(user.token));
  t.false(list.text.includes(created.body.token.slice(4, 20)));

  // The same list through the session cookie.
  const viaCookie = await app.api.get('/api/v1/api-tokens', { cookie: user.cookie });
  t.is(viaCookie.body.count, 2);

  // Someone else sees only their own.
  const theirs = await app.api.get('/api/v1/api-tokens', { token: other.token });
  t.is(theirs.body.count, 1);
  t.false(theirs.body.results.some((r: { id: string }) => r.id === created.body.id));
});

test('another user cannot revoke a token: 404, and it keeps working', async (t) => {
  const owner = await app.api.newUser('tok-fin');
  const intruder = await app.api.newUser('tok-fin-intruder');
  const created = await createToken({ token: owner.token }, { name: 'mine' });

  isProblem(t, await app.api.delete(`/api/v1/api-tokens/${created.body.id}`, { token: intruder.token }), 404, 'not_found');
  isProblem(t, await app.api.delete(`/api/v1/api-tokens/${created.body.id}`, { cookie: intruder.cookie }), 404, 'not_found');
  // Not even a sysadmin revokes other people's tokens through this endpoint.
  isProblem(t, await app.api.delete(`/api/v1/api-tokens/${created.body.id}`, { token: app.adminToken }), 404, 'not_found');
  isProblem(t, await app.api.delete('/api/v1/api-tokens/tok_doesnotexist', { token: owner.token }), 404, 'not_found');

  t.is((await app.api.get('/api/v1/users/me', { token: created.body.token })).status, 200);
  const list = await app.api.get('/api/v1/api-tokens', { token: owner.token });
  t.true(list.body.results.some((r: { id: string }) => r.id === created.body.id));
});

test('revoke: 204, then the very next request with it is 401 and it leaves the list', async (t) => {
  const user = await app.api.newUser('tok-gil');
  const created = await createToken({ token: user.token }, { name: 'doomed' });
  t.is((await app.api.get('/api/v1/users/me', { token: created.body.token })).status, 200);

  const revoked = await app.api.delete(`/api/v1/api-tokens/${created.body.id}`, { cookie: user.cookie });
  t.is(revoked.status, 204, revoked.text);
  t.is(revoked.text, '');

  isProblem(t, await app.api.get('/api/v1/users/me', { token: created.body.token }), 401, 'invalid_token');
  // A bad token is refused even where no login is needed.
  isProblem(t, await app.api.get('/api/v1/organizations', { token: created.body.token }), 401, 'invalid_token');

  const list = await app.api.get('/api/v1/api-tokens', { token: user.token });
  t.false(list.body.results.some((r: { id: string }) => r.id === created.body.id));
  t.is(list.body.count, 1);

  isProblem(t, await app.api.delete(`/api/v1/api-tokens/${created.body.id}`, { token: user.token }), 404, 'not_found');
  // The user's other token is untouched.
  t.is((await app.api.get('/api/v1/users/me', { token: user.token })).status, 200);
});

test('a token can revoke itself', async (t) => {
  const user = await app.api.newUser('tok-hal');
  const created = await createToken({ token: user.token }, { name: 'self' });
  t.is((await app.api.delete(`/api/v1/api-tokens/${created.body.id}`, { token: created.body.token })).status, 204);
  isProblem(t, await app.api.get('/api/v1/api-tokens', { token: created.body.token }), 401, 'invalid_token');
});

test('an expired token is 401 on the next request', async (t) => {
  const user = await app.api.newUser('tok-ida');
  const created = await createToken({ token: user.token }, { name: 'short', expiresInDays: 1 });
  t.is((await app.api.get('/api/v1/users/me', { token: created.body.token })).status, 200);

  await sql(`update api_tokens set expires_at = now() - interval '1 second' where id = ?`, [created.body.id]);
  // Moved into the past by hand: the cached lookup learns it through the row's NOTIFY, within moments
  // (a token that reaches its expiry is refused at once: the cache checks expiresAt on every hit).
  await until(
    'the expiry is notified',
    async () => (await app.api.get('/api/v1/users/me', { token: created.body.token })).status === 401,
    5_000,
  );
  isProblem(t, await app.api.get('/api/v1/users/me', { token: created.body.token }), 401, 'invalid_token');
  isProblem(t, await app.api.post('/api/v1/api-tokens', { name: 'renew' }, { token: created.body.token }), 401, 'invalid_token');
  t.is((await app.api.get('/api/v1/users/me', { token: user.token })).status, 200);
});

test('use of a token is recorded as lastUsedAt', async (t) => {
  const user = await app.api.newUser('tok-jay');
  const created = await createToken({ token: user.token }, { name: 'used' });
  t.is(created.body.lastUsedAt, null);
  t.is((await app.api.get('/api/v1/users/me', { token: created.body.token })).status, 200);
  const list = await app.api.get('/api/v1/api-tokens', { token: user.token });
  const row = list.body.results.find((r: { id: string }) => r.id === created.body.id);
  t.true(Date.now() - Date.parse(row.lastUsedAt) < 60_000, `lastUsedAt ${row.lastUsedAt}`);
});

test('a malformed or unknown bearer token is 401 invalid_token', async (t) => {
  const user = await app.api.newUser('tok-kay');
  const flipped = user.token.slice(0, 10) + (user.token[10] === 'a' ? 'b' : 'a') + user.token.slice(11);
  const headers = [
    'Bearer nonsense',
    `Bearer ${flipped}`,
    `Bearer ${user.token}x`,
    `Bearer ${user.token.slice(0, -1)}`,
    `Basic ${Buffer.from('tok-kay:password-123').toString('base64')}`,
    'Bearer',
    `Token ${user.token}`,
  ];
  for (const Authorization of headers) {
    const res = await app.api.get('/api/v1/users/me', { headers: { Authorization } });
    isProblem(t, res, 401, 'invalid_token');
    t.false(res.text.includes(user.token), Authorization);
  }
  // Well formed, but no longer known to the service.
  const gone = await createToken({ token: user.token }, { name: 'gone' });
  await sql('delete from api_tokens where id = ?', [gone.body.id]);
  isProblem(t, await app.api.get('/api/v1/users/me', { token: gone.body.token }), 401, 'invalid_token');

  // The real one still works, case-insensitive scheme included.
  t.is((await app.api.get('/api/v1/users/me', { headers: { Authorization: `bearer ${user.token}` } })).status, 200);
});

test('anonymous calls to /api-tokens are 401 problems', async (t) => {
  isProblem(t, await app.api.post('/api/v1/api-tokens', { name: 'anon' }), 401, 'unauthenticated');
  isProblem(t, await app.api.get('/api/v1/api-tokens'), 401, 'unauthenticated');
  isProblem(t, await app.api.delete('/api/v1/api-tokens/tok_anything'), 401, 'unauthenticated');
});
