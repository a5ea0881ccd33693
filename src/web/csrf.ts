import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { forbidden } from '../domain/errors.ts';
import { sessionCookieName } from '../http/session-cookie.ts';

const COOKIE = 'almanac_csrf';

/**
 * This browser's random seed: an HttpOnly, SameSite=Strict cookie, made on the first page. Another site can
 * make a browser post, but cannot read the cookie.
 */
function browserSeed(ctx: Context): string {
  const pending = ctx.state.csrfSeed as string | undefined;
  if (pending) return pending;
  const existing = ctx.cookies.get(COOKIE);
  if (existing && /^[A-Za-z0-9_-]{32}$/.test(existing)) return existing;
  const seed = randomBytes(24).toString('base64url');
  ctx.cookies.set(COOKIE, seed, { httpOnly: true, sameSite: 'strict', secure: ctx.secure, path: '/', overwrite: true });
  // A page rendered in this same response already needs it.
  ctx.state.csrfSeed = seed;
  return seed;
}

/**
 * The form token, repeated in every form as a hidden field: the browser's seed signed with its session
 * secret (OWASP's signed double submit). A token is good for one session only, so one planted through a
 * cookie set from a sibling domain, or read before a login, cannot act in the session that follows. The
 * Origin check in authenticate() is the other half.
 */
function boundToken(ctx: Context, seed: string): string {
  const session = ctx.cookies.get(sessionCookieName(ctx)) ?? '';
  return createHmac('sha256', session).update(seed).digest('base64url');
}

export function csrfToken(ctx: Context): string {
  return boundToken(ctx, browserSeed(ctx));
}

/** Refuses a form whose hidden token is missing, or is not this browser's and this session's. */
export function checkCsrf(ctx: Context, form: URLSearchParams) {
  const seed = (ctx.state.csrfSeed as string | undefined) ?? ctx.cookies.get(COOKIE);
  const expected = Buffer.from(seed ? boundToken(ctx, seed) : '');
  const sent = Buffer.from(form.get('_csrf') ?? '');
  // Compared as bytes: a token of as many characters but more bytes must be refused, not throw.
  const ok = expected.length > 0 && sent.length === expected.length && timingSafeEqual(sent, expected);
  if (!ok) throw forbidden('The form has expired or did not come from this site: reload the page and send it again.');
}
