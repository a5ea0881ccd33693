import { createHash } from 'node:crypto';
import test from 'ava';
import { startAlmanac, type RunningAlmanac } from '../../src/runtime/almanac.ts';
import { ApiClient, type TestUser } from '../helpers/client.ts';
import { isProblem } from '../helpers/problem.ts';
import { startTestApp, until, type TestApp } from '../helpers/app.ts';

/**
 * Token and session lookups are cached per process (src/domain/auth/credential-cache.ts). Two API
 * processes share one database here, as replicas would: `a` is the test app, `b` a second one on the
 * same database with its own cache and its own change listener. A revocation made through `a`, through
 * `b` or by SQL holds on both at the very next request: a cache hit first hears the notifications
 * committed before it. Serial: a change notified by one test makes a lookup of another, running
 * meanwhile, skip the cache (by design), which a test asserting "cached" would see.
 */

let app: TestApp;
let other: RunningAlmanac;
let a: ApiClient;
let b: ApiClient;
const admin = () => ({ token: app.adminToken });

test.before(async () => {
  app = await startTestApp();
  const { config, log } = app.almanac.services;
  other = await startAlmanac(
    { ...config, http: { ...config.http, port: 0 }, temporal: { ...config.temporal, runWorkerInProcess: false } },
    log,
  );
  a = app.api;
  b = new ApiClient(other.url);
});
test.after.always(async () => {
  await other?.stop();
  await app?.stop();
});

const cachedOn = (almanac: RunningAlmanac, kind: 'token' | 'session', secret: string) =>
  almanac.services.credentials!.holds(`${kind}:${createHash('sha256').update(secret).digest('hex')}`) !== undefined;
const sessionSecret = (cookie: string) => cookie.split(';')[0]!.split('=')[1]!;

/** Both apps know the user's token and cookie, and `b` answers them from its cache. */
async function warm(t: import('ava').ExecutionContext, user: TestUser) {
  for (const api of [a, b]) {
    t.is((await api.get('/api/v1/users/me', { token: user.token })).status, 200);
    t.is((await api.get('/api/v1/users/me', { cookie: user.cookie })).status, 200);
  }
  t.true(cachedOn(other, 'token', user.token), 'the other app cached the token');
  t.true(cachedOn(other, 'session', sessionSecret(user.cookie)), 'the other app cached the session');
}

const refusedOnB = async (t: import('ava').ExecutionContext, auth: { token?: string; cookie?: string }) =>
  t.is((await b.get('/api/v1/users/me', auth)).status, 401, 'the other app refuses it at once');

test.serial('a revoked token is 401 on the very next request, on this app and on another that had it cached', async (t) => {
  const user = await a.newUser('cache-ann');
  // Rounds: the other app's notification races the next request, which must lose every time.
  for (let round = 0; round < 10; round++) {
    const created = await a.post('/api/v1/api-tokens', { name: `cached-${round}` }, { token: user.token });
    const token = created.body.token as string;
    for (const api of [a, b, a, b]) t.is((await api.get('/api/v1/users/me', { token })).status, 200);
    t.true(cachedOn(app.almanac, 'token', token) && cachedOn(other, 'token', token));

    t.is((await a.delete(`/api/v1/api-tokens/${created.body.id}`, { token: user.token })).status, 204);
    isProblem(t, await b.get('/api/v1/users/me', { token }), 401, 'invalid_token');
    isProblem(t, await a.get('/api/v1/users/me', { token }), 401, 'invalid_token');
  }
  // The user's other credentials are untouched.
  t.is((await b.get('/api/v1/users/me', { token: user.token })).status, 200);
});

test.serial('a token revoked through the other app is refused by this one', async (t) => {
  const user = await a.newUser('cache-bob');
  const created = await a.post('/api/v1/api-tokens', { name: 'cached' }, { token: user.token });
  const token = created.body.token as string;
  t.is((await a.get('/api/v1/users/me', { token })).status, 200);
  t.is((await b.delete(`/api/v1/api-tokens/${created.body.id}`, { token: user.token })).status, 204);
  isProblem(t, await b.get('/api/v1/users/me', { token }), 401, 'invalid_token');
  isProblem(t, await a.get('/api/v1/users/me', { token }), 401, 'invalid_token');
});

test.serial('a user deleted by a sysadmin is refused at once on both apps, token and cookie alike', async (t) => {
  const user = await a.newUser('cache-cat');
  await warm(t, user);
  t.is((await a.delete(`/api/v1/admin/users/${user.id}`, admin())).status, 204);
  isProblem(t, await a.get('/api/v1/users/me', { token: user.token }), 401, 'invalid_token');
  isProblem(t, await a.get('/api/v1/users/me', { cookie: user.cookie }), 401, 'unauthenticated');
  await refusedOnB(t, { token: user.token });
  await refusedOnB(t, { cookie: user.cookie });
});

test.serial('a change made outside either app (SQL by hand, the CLI) reaches both caches', async (t) => {
  const user = await a.newUser('cache-dan');
  await warm(t, user);
  t.true(cachedOn(app.almanac, 'token', user.token));
  await app.almanac.services.orm.em.fork().getConnection().execute(`update users set state = 'deleted' where id = ?`, [user.id]);
  for (const auth of [{ token: user.token }, { cookie: user.cookie }]) {
    t.is((await a.get('/api/v1/users/me', auth)).status, 401, 'this app refuses it at once');
    await refusedOnB(t, auth);
  }
});

test.serial('removing the sysadmin flag takes effect at once on both apps', async (t) => {
  const user = await a.newUser('cache-eve');
  t.is((await a.patch(`/api/v1/admin/users/${user.id}`, { sysadmin: true }, admin())).status, 200);
  for (const api of [a, b]) {
    t.is((await api.get('/api/v1/admin/users', { token: user.token })).status, 200);
    t.is((await api.get('/api/v1/admin/users', { cookie: user.cookie })).status, 200);
  }
  t.true(cachedOn(other, 'token', user.token));

  t.is((await a.patch(`/api/v1/admin/users/${user.id}`, { sysadmin: false }, admin())).status, 200);
  isProblem(t, await a.get('/api/v1/admin/users', { token: user.token }), 403, 'forbidden');
  isProblem(t, await a.get('/api/v1/admin/users', { cookie: user.cookie }), 403, 'forbidden');
  for (const auth of [{ token: user.token }, { cookie: user.cookie }]) {
    t.is((await b.get('/api/v1/admin/users', auth)).status, 403, 'the other app forbids it at once');
  }
  // Still the same, active user.
  t.like((await b.get('/api/v1/users/me', { token: user.token })).body, { username: 'cache-eve', sysadmin: false });
});

test.serial('logout ends the session on the other app too', async (t) => {
  const user = await a.newUser('cache-fay');
  await warm(t, user);
  t.is((await a.post('/api/v1/auth/logout', undefined, { cookie: user.cookie })).status, 204);
  isProblem(t, await a.get('/api/v1/users/me', { cookie: user.cookie }), 401, 'unauthenticated');
  await refusedOnB(t, { cookie: user.cookie });
});

test.serial('while its change listener is disconnected an app answers from the database, and caches again once back', async (t) => {
  const user = await a.newUser('cache-gus');
  await warm(t, user);
  const sql = (query: string, params: unknown[] = []) => app.almanac.services.orm.em.fork().getConnection().execute(query, params);
  const listeners = async () =>
    (await sql(
      `select pid from pg_stat_activity where datname = current_database() and application_name = 'almanac listen almanac_auth'`,
    )) as Array<{
      pid: number;
    }>;
  t.is((await listeners()).length, 2, 'one listener per app');
  await sql(
    `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = 'almanac listen almanac_auth'`,
  );
  await until('the apps notice', () => !cachedOn(other, 'token', user.token) && !cachedOn(app.almanac, 'token', user.token));

  // Not cached meanwhile: a revocation whose notification no one could hear still holds on the next request.
  t.is((await b.get('/api/v1/users/me', { token: user.token })).status, 200);
  t.false(cachedOn(other, 'token', user.token), 'nothing cached without a listener');

  await until('both listeners are back', async () => (await listeners()).length === 2);
  await until('the other app caches again', async () => {
    await b.get('/api/v1/users/me', { token: user.token });
    return cachedOn(other, 'token', user.token);
  });
  t.pass();
});
