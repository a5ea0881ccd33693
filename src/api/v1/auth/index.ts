import { login } from '../../../domain/auth/login.ts';
import { closeSession } from '../../../domain/auth/sessions.ts';
import { registerUser } from '../../../domain/users/users.ts';
import { sessionCookieName, setSessionCookie } from '../../../http/session-cookie.ts';
import { defineRoute } from '../../../http/route.ts';
import { UserRecord } from '../../../http/schemas.ts';
import { LoginBody, RegisterBody } from './schema.ts';

export const authRoutes = [
  defineRoute({
    method: 'post',
    path: '/auth/register',
    problems: ['conflict', 'registration_disabled', 'registration_rate_limited'],
    summary: 'Create an account (when site settings allow registration)',
    tag: 'auth',
    access: 'public',
    noPolicy: 'anyone may register while the site allows it (a setting, checked in the domain)',
    body: RegisterBody,
    status: 201,
    response: UserRecord,
    handle: ({ domain, body, ctx }) => registerUser(domain, body, ctx.ip),
  }),
  defineRoute({
    method: 'post',
    path: '/auth/login',
    problems: ['invalid_credentials', 'login_rate_limited'],
    summary: 'Log in with username or email and password; sets the session cookie',
    tag: 'auth',
    access: 'public',
    noPolicy: 'the credentials are the check',
    body: LoginBody,
    response: UserRecord,
    async handle({ domain, body, ctx }) {
      const { user, session } = await login(domain, body, ctx.ip);
      setSessionCookie(ctx, session.secret, session.expiresAt);
      return user;
    },
  }),
  defineRoute({
    method: 'post',
    path: '/auth/logout',
    summary: 'End the current session and clear its cookie',
    tag: 'auth',
    access: 'public',
    noPolicy: 'ends only the session the request itself carries',
    async handle({ domain, ctx }) {
      const secret = ctx.cookies.get(sessionCookieName(ctx));
      if (secret) await closeSession(domain, secret);
      setSessionCookie(ctx, null);
      return undefined;
    },
  }),
];
