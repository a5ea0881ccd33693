import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { forbidden } from '../domain/errors.ts';

const COOKIE = 'almanac_csrf';

/**
 * The form token of this browser (double submit): a random value in an HttpOnly, SameSite=Strict cookie,
 * repeated in every form as a hidden field. Another site can make a browser post, but cannot read the
 * cookie to fill the field. The Origin check in authenticate() is the other half.
 */
export function csrfToken(ctx: Context): string {
  const existing = ctx.cookies.get(COOKIE);
  if (existing && /^[A-Za-z0-9_-]{32}$/.test(existing)) return existing;
  const token = randomBytes(24).toString('base64url');
  ctx.cookies.set(COOKIE, token, { httpOnly: true, sameSite: 'strict', secure: ctx.secure, path: '/', overwrite: true });
  // A page rendered in this same response already needs it.
  ctx.state.csrfToken = token;
  return token;
}

/** Refuses a form whose hidden token is missing or is not this browser's. */
export function checkCsrf(ctx: Context, form: URLSearchParams) {
  const cookie = Buffer.from((ctx.state.csrfToken as string | undefined) ?? ctx.cookies.get(COOKIE) ?? '');
  const sent = Buffer.from(form.get('_csrf') ?? '');
  // Compared as bytes: a token of as many characters but more bytes must be refused, not throw.
  const ok = cookie.length > 0 && sent.length === cookie.length && timingSafeEqual(sent, cookie);
  if (!ok) throw forbidden('The form has expired or did not come from this site: reload the page and send it again.');
}
