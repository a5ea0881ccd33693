import { User } from '../../entities/index.ts';
import type { DomainContext } from '../context.ts';
import { invalidCredentials } from '../errors.ts';
import { presentUser } from '../users/present.ts';
import { LoginThrottle } from './login-throttle.ts';
import { verifyAgainstDecoy, verifyPassword } from './passwords.ts';
import { openSession } from './sessions.ts';

export interface Credentials {
  username?: string;
  email?: string;
  password: string;
}

/** Checks credentials under the login throttle and opens a session. */
export async function login(ctx: DomainContext, credentials: Credentials, clientIp: string) {
  const identifier = (credentials.username ?? credentials.email ?? '').toLowerCase();
  const user = await ctx.em.findOne(User, credentials.username ? { username: identifier } : { email: identifier });
  // Failures count against the account however it is named (username or email); an unknown name counts on its own.
  const account = user ? `id:${user.id}` : `name:${identifier}`;
  const throttle = new LoginThrottle(ctx.em, ctx.config.auth.loginThrottle);
  await throttle.beginAttempt(account, clientIp);

  const ok =
    user && user.state === 'active'
      ? await verifyPassword(credentials.password, user.passwordHash)
      : await verifyAgainstDecoy(credentials.password);
  if (!ok || !user) {
    await throttle.recordFailure(clientIp);
    throw invalidCredentials();
  }
  await throttle.recordSuccess(account);
  const session = await openSession(ctx, user);
  return { user: presentUser(user, { withEmail: true }), session };
}
