import test from 'ava';
import { isProblem } from '../helpers/problem.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp({ REGISTRATION_ENABLED: 'false' });
});
test.after.always(async () => app?.stop());

test('site settings say registration is off', async (t) => {
  const res = await app.api.get('/api/v1/site/settings');
  t.is(res.status, 200);
  t.is(res.body.registrationEnabled, false);
});

test('register is 403 registration_disabled and creates nobody', async (t) => {
  const res = await app.api.post('/api/v1/auth/register', {
    username: 'closed-amy',
    email: 'closed-amy@example.org',
    password: 'password-123',
  });
  isProblem(t, res, 403, 'registration_disabled');
  const found = await app.api.get('/api/v1/admin/users?q=closed-amy', { token: app.adminToken });
  t.is(found.body.count, 0);
  isProblem(t, await app.api.login('closed-amy', 'password-123'), 401, 'invalid_credentials');
});

test('a sysadmin can still create accounts, and those can log in', async (t) => {
  const created = await app.api.post(
    '/api/v1/admin/users',
    { username: 'closed-bo', email: 'closed-bo@example.org', password: 'password-123' },
    { token: app.adminToken },
  );
  t.is(created.status, 201, created.text);
  const login = await app.api.login('closed-bo', 'password-123');
  t.is(login.status, 200, login.text);
  t.is((await app.api.get('/api/v1/users/me', { cookie: login.cookie })).body.username, 'closed-bo');
});
