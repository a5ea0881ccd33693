import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { isProblem } from '../helpers/problem.ts';

/**
 * A 409 on a taken email or username tells that an account exists: like failed logins, such refusals are
 * counted per client IP (issue 16, item 9), so that nobody can walk a list of emails through registration.
 */

let app: TestApp;
test.before(async () => {
  app = await startTestApp({ REGISTRATION_MAX_CONFLICTS_PER_IP: '3' });
});
test.after.always(() => app?.stop());

const register = (username: string, email: string) => app.api.post('/api/v1/auth/register', { username, email, password: 'password-123' });

test('after REGISTRATION_MAX_CONFLICTS_PER_IP refusals of taken details, the client gets 429 with Retry-After, even for free details', async (t) => {
  t.is((await register('first-owner', 'owner@example.org')).status, 201);
  for (const guess of ['a@example.org', 'owner@example.org', 'b@example.org']) {
    // A free email with the taken username is refused too: either detail counts.
    const reply = await register(guess === 'owner@example.org' ? 'someone-else' : 'first-owner', guess);
    isProblem(t, reply, 409, 'conflict');
  }
  const limited = await register('someone-new', 'owner@example.org');
  isProblem(t, limited, 429, 'registration_rate_limited');
  t.true(Number(limited.headers.get('retry-after')) > 0);
  isProblem(t, await register('free-name', 'free@example.org'), 429, 'registration_rate_limited');
  // Logging in is a different count.
  t.is((await app.api.post('/api/v1/auth/login', { username: 'first-owner', password: 'password-123' })).status, 200);
});
