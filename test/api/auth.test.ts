import http from 'node:http';
import test, { type ExecutionContext } from 'ava';
import { fieldPaths, isProblem } from '../helpers/problem.ts';
import { startTestApp, until, type TestApp } from '../helpers/app.ts';
import type { Reply } from '../helpers/client.ts';

const MAX_PER_ACCOUNT = 3;
const MAX_PER_IP = 5;
const WINDOW_SECONDS = 600;

let app: TestApp;
test.before(async () => {
  app = await startTestApp({
    // The throttle tests give each scenario its own client IP through X-Forwarded-For, so they cannot
    // lock each other (or the rest of this file) out while tests run concurrently.
    TRUST_PROXY: 'true',
    LOGIN_MAX_FAILURES_PER_ACCOUNT: String(MAX_PER_ACCOUNT),
    LOGIN_MAX_FAILURES_PER_IP: String(MAX_PER_IP),
    LOGIN_THROTTLE_WINDOW_SECONDS: String(WINDOW_SECONDS),
  });
});
test.after.always(async () => app?.stop());

/** A client IP of its own for every call, so throttle counts never leak between tests. */
let ipCounter = 0;
const freshIp = () => {
  ipCounter += 1;
  return `198.51.${Math.floor(ipCounter / 250)}.${(ipCounter % 250) + 1}`;
};
const fromIp = (ip: string) => ({ headers: { 'X-Forwarded-For': ip } });

const register = (username: string, password = 'password-123', extra: Record<string, unknown> = {}) =>
  app.api.post('/api/v1/auth/register', { username, email: `${username}@example.org`, password, ...extra });

/** Parses one Set-Cookie header into its name, value and lower-cased attributes. */
function parseSetCookie(header: string | null) {
  const [pair, ...attrs] = (header ?? '').split(';').map((s) => s.trim());
  const eq = pair.indexOf('=');
  const attributes = new Map<string, string>();
  for (const a of attrs) {
    const i = a.indexOf('=');
    attributes.set((i < 0 ? a : a.slice(0, i)).toLowerCase(), i < 0 ? '' : a.slice(i + 1));
  }
  return { name: pair.slice(0, eq), value: pair.slice(eq + 1), attributes };
}

// ---- register ----

test('register creates an account: 201 with the email, never the password', async (t) => {
  const password = 'reg-secret-pass-1';
  const res = await register('reg-alice', password, { email: 'Reg-Alice@Example.org', displayName: 'Alice Register' });
  t.is(res.status, 201, res.text);
  t.regex(res.body.id, /^[0-9a-f-]{36}$/);
  t.like(res.body, {
    username: 'reg-alice',
    email: 'reg-alice@example.org',
    displayName: 'Alice Register',
    sysadmin: false,
    state: 'active',
  });
  t.false(Number.isNaN(Date.parse(res.body.createdAt)));
  t.false('password' in res.body);
  t.false('passwordHash' in res.body);
  t.false(res.text.includes(password));
  t.is(res.headers.get('set-cookie'), null, 'registering does not log in');
});

test('register cannot make a sysadmin', async (t) => {
  const res = await register('reg-sneaky', 'password-123', { sysadmin: true });
  isProblem(t, res, 422, 'validation_failed');
  t.deepEqual(fieldPaths(res), ['sysadmin']);
});

test('an email with more than 64 characters before the @ is no email address (format: email, RFC 5321): 422', async (t) => {
  const res = await register('reg-long-local', 'password-123', { email: `${'a'.repeat(65)}@example.org` });
  isProblem(t, res, 422, 'validation_failed');
  t.deepEqual(fieldPaths(res), ['email']);
  t.is((await register('reg-local-64', 'password-123', { email: `${'a'.repeat(64)}@example.org` })).status, 201);
});

test('a taken username or email is 409 naming the field', async (t) => {
  t.is((await register('reg-bob')).status, 201);

  const sameName = await register('reg-bob', 'password-123', { email: 'other-bob@example.org' });
  isProblem(t, sameName, 409, 'conflict');
  t.deepEqual(fieldPaths(sameName), ['username']);

  // Emails are compared without case.
  const sameEmail = await register('reg-bob2', 'password-123', { email: 'REG-BOB@example.org' });
  isProblem(t, sameEmail, 409, 'conflict');
  t.deepEqual(fieldPaths(sameEmail), ['email']);

  const both = await register('reg-bob');
  isProblem(t, both, 409, 'conflict');
  t.deepEqual(fieldPaths(both), ['email', 'username']);
});

// ---- login, session cookie, logout ----

test('login by username sets an HttpOnly, SameSite=Lax session cookie and returns the user', async (t) => {
  t.is((await register('login-carol')).status, 201);
  const res = await app.api.login('login-carol', 'password-123');
  t.is(res.status, 200, res.text);
  t.like(res.body, { username: 'login-carol', email: 'login-carol@example.org', sysadmin: false });
  t.false(res.text.includes('password-123'));

  const cookie = parseSetCookie(res.headers.get('set-cookie'));
  t.is(cookie.name, 'almanac_session', 'plain name over http; __Secure- is for https only');
  t.true(cookie.value.length >= 32, 'an unguessable secret');
  t.true(cookie.attributes.has('httponly'));
  t.is(cookie.attributes.get('samesite')?.toLowerCase(), 'lax');
  t.is(cookie.attributes.get('path'), '/');
  t.false(cookie.attributes.has('secure'), 'not Secure over plain http');
  // It lasts as long as the session: SESSION_TTL_HOURS, 14 days by default.
  const expires = Date.parse(cookie.attributes.get('expires') ?? '');
  t.true(Math.abs(expires - (Date.now() + 14 * 86400_000)) < 120_000, `expires ${cookie.attributes.get('expires')}`);

  // The cookie authenticates reads without any Origin.
  const me = await app.api.get('/api/v1/users/me', { cookie: res.cookie, origin: null });
  t.is(me.status, 200);
  t.like(me.body, { id: res.body.id, username: 'login-carol', email: 'login-carol@example.org' });
});

test('login by email (any case) works too', async (t) => {
  t.is((await register('login-dan')).status, 201);
  const res = await app.api.post('/api/v1/auth/login', { email: 'Login-Dan@EXAMPLE.org', password: 'password-123' });
  t.is(res.status, 200, res.text);
  t.is(res.body.username, 'login-dan');
  t.is(parseSetCookie(res.headers.get('set-cookie')).name, 'almanac_session');
  t.is((await app.api.login('LOGIN-DAN', 'password-123')).status, 200, 'usernames are lower case, so any case finds them');
});

test('over HTTPS (here: behind a trusted proxy) the cookie is __Secure-almanac_session and Secure', async (t) => {
  t.is((await register('login-tls')).status, 201);
  const https = { 'X-Forwarded-Proto': 'https' };
  const res = await app.api.login('login-tls', 'password-123', { headers: https });
  t.is(res.status, 200, res.text);
  const cookie = parseSetCookie(res.headers.get('set-cookie'));
  t.is(cookie.name, '__Secure-almanac_session');
  t.true(cookie.attributes.has('secure'));
  t.true(cookie.attributes.has('httponly'));
  t.is(cookie.attributes.get('samesite')?.toLowerCase(), 'lax');

  const me = await app.api.get('/api/v1/users/me', { cookie: res.cookie, headers: https });
  t.is(me.status, 200);
  t.is(me.body.username, 'login-tls');
  const out = await app.api.post('/api/v1/auth/logout', undefined, {
    cookie: res.cookie,
    // PUBLIC_URL's origin: with PUBLIC_URL set, the only one a cookie-authenticated change may come from.
    origin: app.url,
    headers: https,
  });
  t.is(out.status, 204, out.text);
  t.is(parseSetCookie(out.headers.get('set-cookie')).name, '__Secure-almanac_session');
  isProblem(t, await app.api.get('/api/v1/users/me', { cookie: res.cookie, headers: https }), 401, 'unauthenticated');
});

test('login wants exactly one of username and email', async (t) => {
  const both = await app.api.post('/api/v1/auth/login', { username: 'x1', email: 'x1@example.org', password: 'password-123' });
  isProblem(t, both, 422, 'validation_failed');
  const neither = await app.api.post('/api/v1/auth/login', { password: 'password-123' });
  isProblem(t, neither, 422, 'validation_failed');
});

test('a wrong password and an unknown user fail alike: 401 invalid_credentials, no cookie', async (t) => {
  t.is((await register('login-erin')).status, 201);
  const wrong = await app.api.login('login-erin', 'wrong-password', fromIp(freshIp()));
  isProblem(t, wrong, 401, 'invalid_credentials');
  t.is(wrong.headers.get('set-cookie'), null);

  const unknown = await app.api.login('login-nobody-here', 'password-123', fromIp(freshIp()));
  isProblem(t, unknown, 401, 'invalid_credentials');
  t.is(unknown.headers.get('set-cookie'), null);
  t.is(unknown.body.detail, wrong.body.detail, 'the answer does not tell whether the account exists');

  const unknownEmail = await app.api.post(
    '/api/v1/auth/login',
    { email: 'nobody@example.org', password: 'password-123' },
    fromIp(freshIp()),
  );
  isProblem(t, unknownEmail, 401, 'invalid_credentials');
});

test('logout ends the session: the cookie is cleared and the old value no longer authenticates', async (t) => {
  t.is((await register('logout-fay')).status, 201);
  const first = await app.api.login('logout-fay', 'password-123');
  const second = await app.api.login('logout-fay', 'password-123');
  t.is((await app.api.get('/api/v1/users/me', { cookie: first.cookie })).status, 200);

  const out = await app.api.post('/api/v1/auth/logout', undefined, { cookie: first.cookie });
  t.is(out.status, 204, out.text);
  const cleared = parseSetCookie(out.headers.get('set-cookie'));
  t.is(cleared.name, 'almanac_session');
  t.is(cleared.value, '');
  t.true(Date.parse(cleared.attributes.get('expires') ?? '') < Date.now(), 'the browser drops the cookie');

  isProblem(t, await app.api.get('/api/v1/users/me', { cookie: first.cookie }), 401, 'unauthenticated');
  isProblem(t, await app.api.post('/api/v1/api-tokens', { name: 'after logout' }, { cookie: first.cookie }), 401, 'unauthenticated');
  // Only that session ended.
  t.is((await app.api.get('/api/v1/users/me', { cookie: second.cookie })).status, 200);
});

test('logout without a session is harmless', async (t) => {
  const res = await app.api.post('/api/v1/auth/logout');
  t.is(res.status, 204);
});

test('an unknown or expired session cookie is anonymous', async (t) => {
  isProblem(t, await app.api.get('/api/v1/users/me', { cookie: 'almanac_session=made-up-value' }), 401, 'unauthenticated');

  t.is((await register('expire-gus')).status, 201);
  const { cookie, body } = await app.api.login('expire-gus', 'password-123');
  t.is((await app.api.get('/api/v1/users/me', { cookie })).status, 200);
  await app.almanac.services.orm.em
    .fork()
    .getConnection()
    .execute(`update sessions set expires_at = now() - interval '1 second' where user_id = ?`, [body.id]);
  // Moved into the past by hand: the cached lookup learns it through the row's NOTIFY, within moments.
  await until('the expiry is notified', async () => (await app.api.get('/api/v1/users/me', { cookie })).status === 401, 5_000);
  isProblem(t, await app.api.get('/api/v1/users/me', { cookie }), 401, 'unauthenticated');
});

// ---- CSRF: the Origin check for cookie-authenticated writes ----

test('a cookie-authenticated write needs this site as its Origin (or Referer)', async (t) => {
  t.is((await register('csrf-hal')).status, 201);
  const { cookie } = await app.api.login('csrf-hal', 'password-123');

  const foreign = await app.api.post('/api/v1/api-tokens', { name: 'csrf' }, { cookie, origin: 'https://evil.example' });
  isProblem(t, foreign, 403, 'forbidden');

  const none = await app.api.post('/api/v1/api-tokens', { name: 'csrf' }, { cookie, origin: null });
  isProblem(t, none, 403, 'forbidden');

  const opaque = await app.api.post('/api/v1/api-tokens', { name: 'csrf' }, { cookie, origin: 'null' });
  isProblem(t, opaque, 403, 'forbidden');

  const foreignReferer = await app.api.post(
    '/api/v1/api-tokens',
    { name: 'csrf' },
    {
      cookie,
      origin: null,
      headers: { Referer: 'https://evil.example/page' },
    },
  );
  isProblem(t, foreignReferer, 403, 'forbidden');

  // A look-alike of this site is still another site.
  const lookAlike = await app.api.post('/api/v1/api-tokens', { name: 'csrf' }, { cookie, origin: `${app.url}.evil.example` });
  isProblem(t, lookAlike, 403, 'forbidden');

  const foreignDelete = await app.api.delete('/api/v1/api-tokens/tok_whatever', { cookie, origin: 'https://evil.example' });
  isProblem(t, foreignDelete, 403, 'forbidden');

  const foreignLogout = await app.api.post('/api/v1/auth/logout', undefined, { cookie, origin: 'https://evil.example' });
  isProblem(t, foreignLogout, 403, 'forbidden');

  // Nothing was created by the refused requests.
  const list = await app.api.get('/api/v1/api-tokens', { cookie });
  t.is(list.status, 200);
  t.is(list.body.count, 0);

  const sameOrigin = await app.api.post('/api/v1/api-tokens', { name: 'same origin' }, { cookie, origin: app.url });
  t.is(sameOrigin.status, 201, sameOrigin.text);

  const sameReferer = await app.api.post(
    '/api/v1/api-tokens',
    { name: 'same referer' },
    {
      cookie,
      origin: null,
      headers: { Referer: `${app.url}/some/page?x=1` },
    },
  );
  t.is(sameReferer.status, 201, sameReferer.text);

  // Reads carry no risk and need no Origin.
  t.is((await app.api.get('/api/v1/api-tokens', { cookie, origin: 'https://evil.example' })).status, 200);
});

test('with PUBLIC_URL set, an Origin that only matches the Host header the client sent is refused', async (t) => {
  t.is((await register('csrf-kim')).status, 201);
  const { cookie } = await app.api.login('csrf-kim', 'password-123');
  const { port } = new URL(app.url);
  // A client chooses its Host header; only PUBLIC_URL says where this site is.
  const status = await new Promise<number>((resolve, reject) => {
    const body = JSON.stringify({ name: 'forged host' });
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v1/api-tokens',
        headers: { Host: 'evil.example', Origin: 'http://evil.example', Cookie: cookie, 'Content-Type': 'application/json' },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  t.is(status, 403);
  t.is((await app.api.get('/api/v1/api-tokens', { cookie })).body.count, 0);
});

test('bearer-authenticated writes need no Origin', async (t) => {
  const user = await app.api.newUser('csrf-ivy');
  const none = await app.api.post('/api/v1/api-tokens', { name: 'cli' }, { token: user.token });
  t.is(none.status, 201, none.text);
  const foreign = await app.api.post('/api/v1/api-tokens', { name: 'cli' }, { token: user.token, origin: 'https://elsewhere.example' });
  t.is(foreign.status, 201, foreign.text);
});

test('login CSRF: a login posted from another site is refused and sets no cookie', async (t) => {
  t.is((await register('csrf-jon')).status, 201);
  const res = await app.api.login('csrf-jon', 'password-123', { origin: 'https://evil.example' });
  isProblem(t, res, 403, 'forbidden');
  t.is(res.headers.get('set-cookie'), null);

  const reg = await app.api.post(
    '/api/v1/auth/register',
    { username: 'csrf-jon2', email: 'csrf-jon2@example.org', password: 'password-123' },
    { origin: 'https://evil.example' },
  );
  isProblem(t, reg, 403, 'forbidden');

  // From the site itself, and from a non-browser client (no Origin), login works.
  t.is((await app.api.login('csrf-jon', 'password-123', { origin: app.url })).status, 200);
  t.is((await app.api.login('csrf-jon', 'password-123')).status, 200);
});

// ---- login throttle ----

const assertRetryAfter = (t: ExecutionContext, res: Reply) => {
  const header = res.headers.get('retry-after') ?? '';
  t.regex(header, /^\d+$/, 'Retry-After is a whole number of seconds');
  const seconds = Number(header);
  t.true(seconds > 0 && seconds <= WINDOW_SECONDS, `Retry-After ${seconds}`);
};

test('after too many failed logins for one account it is locked (429), even with the right password', async (t) => {
  t.is((await register('throttle-kim')).status, 201);
  const ip = freshIp();
  for (let i = 0; i < MAX_PER_ACCOUNT; i++) {
    isProblem(t, await app.api.login('throttle-kim', `wrong-password-${i}`, fromIp(ip)), 401, 'invalid_credentials');
  }
  const locked = await app.api.login('throttle-kim', 'password-123', fromIp(ip));
  isProblem(t, locked, 429, 'login_rate_limited');
  assertRetryAfter(t, locked);
  t.is(locked.headers.get('set-cookie'), null);

  // The count belongs to the account, not to the client that made the guesses...
  const elsewhere = await app.api.login('throttle-kim', 'password-123', fromIp(freshIp()));
  isProblem(t, elsewhere, 429, 'login_rate_limited');
  assertRetryAfter(t, elsewhere);
  // ...nor to the identifier typed: the same account by email is locked as well.
  const byEmail = await app.api.post(
    '/api/v1/auth/login',
    { email: 'throttle-kim@example.org', password: 'password-123' },
    fromIp(freshIp()),
  );
  isProblem(t, byEmail, 429, 'login_rate_limited');

  // Another account is not affected.
  t.is((await register('throttle-kim2')).status, 201);
  t.is((await app.api.login('throttle-kim2', 'password-123', fromIp(freshIp()))).status, 200);
});

test('a burst of parallel guesses gets no more password checks than the limit', async (t) => {
  t.is((await register('throttle-burst')).status, 201);
  const replies = await Promise.all(
    Array.from({ length: MAX_PER_ACCOUNT + 6 }, (_, i) => app.api.login('throttle-burst', `guess-${i}`, fromIp(freshIp()))),
  );
  const statuses = replies.map((r) => r.status);
  t.is(statuses.filter((s) => s === 401).length, MAX_PER_ACCOUNT, statuses.join(','));
  t.is(statuses.filter((s) => s === 429).length, 6, statuses.join(','));
});

test('a client cannot dodge the IP limit by forging X-Forwarded-For entries in front of the proxy one', async (t) => {
  const ip = freshIp();
  const statuses: number[] = [];
  for (let i = 0; i <= MAX_PER_IP; i++) {
    const forged = { headers: { 'X-Forwarded-For': `203.0.113.${i + 1}, ${ip}` } };
    statuses.push((await app.api.login(`forger-${i}`, 'wrong-password', forged)).status);
  }
  t.deepEqual(statuses, [...Array(MAX_PER_IP).fill(401), 429]);
});

test('failures by email count against the account when logging in by username', async (t) => {
  t.is((await register('throttle-lee')).status, 201);
  for (let i = 0; i < MAX_PER_ACCOUNT; i++) {
    const res = await app.api.post('/api/v1/auth/login', { email: 'throttle-lee@example.org', password: `wrong-${i}` }, fromIp(freshIp()));
    isProblem(t, res, 401, 'invalid_credentials');
  }
  const locked = await app.api.login('throttle-lee', 'password-123', fromIp(freshIp()));
  isProblem(t, locked, 429, 'login_rate_limited');
  assertRetryAfter(t, locked);
});

test('a successful login clears the account count', async (t) => {
  t.is((await register('throttle-mo')).status, 201);
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < MAX_PER_ACCOUNT - 1; i++) {
      isProblem(t, await app.api.login('throttle-mo', 'wrong-password', fromIp(freshIp())), 401, 'invalid_credentials');
    }
    t.is((await app.api.login('throttle-mo', 'password-123', fromIp(freshIp()))).status, 200);
  }
});

test('too many failures from one IP, across accounts, lock that IP out (429) but no one else', async (t) => {
  t.is((await register('throttle-ned')).status, 201);
  const ip = freshIp();
  for (let i = 0; i < MAX_PER_IP; i++) {
    isProblem(t, await app.api.login(`throttle-ghost-${i}`, 'password-123', fromIp(ip)), 401, 'invalid_credentials');
  }
  const locked = await app.api.login('throttle-ned', 'password-123', fromIp(ip));
  isProblem(t, locked, 429, 'login_rate_limited');
  assertRetryAfter(t, locked);
  t.is(locked.headers.get('set-cookie'), null);

  t.is((await app.api.login('throttle-ned', 'password-123', fromIp(freshIp()))).status, 200, 'the account itself is fine');
});

// ---- logs ----

test('logs never hold a password, a token secret or a session cookie', async (t) => {
  const password = 'log-secret-password-77';
  const wrongPassword = 'log-wrong-password-88';
  t.is((await register('logs-olga', password)).status, 201);
  const login = await app.api.login('logs-olga', password);
  t.is(login.status, 200);
  isProblem(t, await app.api.login('logs-olga', wrongPassword, fromIp(freshIp())), 401, 'invalid_credentials');
  const cookieValue = login.cookie.split('=')[1];
  t.truthy(cookieValue);

  const created = await app.api.post('/api/v1/api-tokens', { name: 'log check' }, { cookie: login.cookie });
  t.is(created.status, 201);
  const secret: string = created.body.token;
  t.is((await app.api.get('/api/v1/users/me', { token: secret })).status, 200);
  t.is((await app.api.get('/api/v1/users/me', { token: `${secret}x` })).status, 401);
  t.is((await app.api.delete(`/api/v1/api-tokens/${created.body.id}`, { token: secret })).status, 204);
  t.is((await app.api.get('/api/v1/users/me', { token: secret })).status, 401);
  t.is((await app.api.post('/api/v1/auth/logout', undefined, { cookie: login.cookie })).status, 204);

  // The requests were logged...
  t.true(app.logs.some((l) => l.includes('"path":"/api/v1/auth/login"')));
  t.true(app.logs.some((l) => l.includes('"path":"/api/v1/users/me"')));
  // ...without their secrets.
  for (const [what, value] of [
    ['password', password],
    ['wrong password', wrongPassword],
    ['token secret', secret],
    ['session cookie', cookieValue],
  ]) {
    const leaking = app.logs.filter((l) => l.includes(value));
    t.deepEqual(leaking, [], `a log line holds the ${what}`);
  }
});
