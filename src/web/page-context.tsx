import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Actor } from '../domain/actor.ts';
import type { DomainContext, DomainServices } from '../domain/context.ts';
import type { DomainError } from '../domain/errors.ts';
import { getMe } from '../domain/users/users.ts';
import { auditedRunner, unitKey } from '../policies/audited-runner.ts';
import { can } from '../policies/index.ts';
import { csrfToken } from './csrf.ts';
import type { PageFrame } from './layout.tsx';
import { WEB_PAGES, type WebPage } from './page-table.ts';
import { ErrorPage } from './pages/error.tsx';
import { sendPage } from './render.ts';

export const domainOf = (ctx: Context) => ctx.state.domain as DomainContext;
export const actorOf = (ctx: Context) => ctx.state.actor as Actor;

/** What every page's frame needs: the site's name, who is logged in, this browser's form token. */
export async function frameOf(ctx: Context, services: DomainServices): Promise<PageFrame> {
  const actor = actorOf(ctx);
  const me = actor.userId ? await getMe(domainOf(ctx), actor) : null;
  return {
    siteName: services.config.site.name,
    user: me ? (me.displayName ?? me.username) : null,
    csrf: csrfToken(ctx),
    registration: services.config.site.registrationEnabled,
  };
}

/** A page's failure as a page: the status and words of the API's problem, never a stack. */
async function sendErrorPage(ctx: Context, services: DomainServices, err: DomainError) {
  for (const [name, value] of Object.entries(err.headers ?? {})) ctx.set(name, value);
  sendPage(ctx, <ErrorPage frame={await frameOf(ctx, services)} status={err.status} title={err.title} detail={err.message} />, err.status);
}

/**
 * Mounts a page of the table (page-table.ts) on the router: each request runs through the audited
 * runner as `web:<METHOD> <path>`, its path parameters and query refused when nothing could store them,
 * its failures answered as an error page.
 */
export function mountPage(router: Router, services: DomainServices, page: WebPage, handler: (ctx: Context) => Promise<void>) {
  const run = auditedRunner(services.config.http);
  const [method, path] = page.split(' ') as ['GET' | 'POST', string];
  const unit = { key: unitKey('web', page), ...WEB_PAGES[page] };
  const serve = (ctx: Context) =>
    run(unit, () => handler(ctx), { refuse: (err) => sendErrorPage(ctx, services, err), inputs: [ctx.params, ctx.query] });
  if (method === 'GET') router.get(path, serve);
  else router.post(path, serve);
}

/** A page for logged-in people: everyone else is sent to log in first, and back here after. */
export function loggedIn(ctx: Context): boolean {
  // Through the rule, so a page that only lets members in has consulted one (the audit).
  if (can(actorOf(ctx), 'self:manage')) return true;
  ctx.redirect(`/login?next=${encodeURIComponent(ctx.url)}`);
  return false;
}
