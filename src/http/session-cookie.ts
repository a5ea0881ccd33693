import type { Context } from 'koa';

/** `__Secure-` only over HTTPS, where browsers accept it (DESIGN §4). */
export const sessionCookieName = (ctx: Context) => (ctx.secure ? '__Secure-almanac_session' : 'almanac_session');

/** The session cookie, set by a login (the API's or a page's) and cleared by a logout. */
export const setSessionCookie = (ctx: Context, value: string | null, expires?: Date) =>
  ctx.cookies.set(sessionCookieName(ctx), value, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: '/',
    expires,
    overwrite: true,
  });
