import type { Context } from 'koa';
import type { Actor } from '../domain/actor.ts';
import type { DomainContext, DomainServices } from '../domain/context.ts';
import { DomainError } from '../domain/errors.ts';
import { getMe } from '../domain/users/users.ts';
import { csrfToken } from './csrf.ts';
import type { PageFrame } from './layout.tsx';
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
export function page(services: DomainServices, handler: (ctx: Context) => Promise<void>) {
  return async (ctx: Context) => {
    try {
      await handler(ctx);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      for (const [name, value] of Object.entries(err.headers ?? {})) ctx.set(name, value);
      sendPage(
        ctx,
        <ErrorPage frame={await frameOf(ctx, services)} status={err.status} title={err.title} detail={err.message} />,
        err.status,
      );
    }
  };
}

/** A page for logged-in people: everyone else is sent to log in first, and back here after. */
export function loggedIn(ctx: Context): boolean {
  if (actorOf(ctx).userId) return true;
  ctx.redirect(`/login?next=${encodeURIComponent(ctx.url)}`);
  return false;
}
