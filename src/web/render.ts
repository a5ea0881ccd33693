import type { Context } from 'koa';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/**
 * What a page may load: only this site's own stylesheet and script, no inline script or style, no frames.
 * A dataset's text comes from strangers; even if some of it slipped past escaping, it could run nothing.
 * Scripts may reach this site, and the object store an upload URL points at (`storageOrigin`).
 */
export const contentSecurityPolicy = (storageOrigin: string | null) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self'${storageOrigin ? ` ${storageOrigin}` : ''}`,
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

const DEFAULT_POLICY = contentSecurityPolicy(null);

/** Answers the request with the page, escaped by Preact's renderer. */
export function sendPage(ctx: Context, page: VNode, status = 200) {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', (ctx.state.contentSecurityPolicy as string | undefined) ?? DEFAULT_POLICY);
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('X-Frame-Options', 'DENY');
  // Pages differ by who asks (a login shows drafts, private datasets): never stored by a shared cache.
  ctx.set('Cache-Control', 'private, no-store');
  ctx.body = `<!doctype html>${renderToString(page)}`;
}
