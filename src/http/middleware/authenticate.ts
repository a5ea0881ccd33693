import type { Context, Middleware } from 'koa';
import { anonymous, type Actor } from '../../domain/actor.ts';
import { actAs } from '../../domain/activity/actor-scope.ts';
import { userForSession } from '../../domain/auth/sessions.ts';
import { userForToken } from '../../domain/auth/api-tokens.ts';
import type { DomainContext, DomainServices } from '../../domain/context.ts';
import { forbidden, invalidToken } from '../../domain/errors.ts';
import { sessionCookieName } from '../session-cookie.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Gives each request its own EntityManager fork (made on first use) and resolves who is calling: a Bearer token, else the
 * session cookie, else anonymous. A bad token is a 401 at once; a stale cookie just means anonymous.
 * On the paths `ckanTokens` names (the CKAN-compatible API) the token may also come as CKAN clients send
 * it: bare in Authorization, or in X-CKAN-API-Key.
 */
export function authenticate(services: DomainServices, ckanTokens: (path: string) => boolean = () => false): Middleware {
  const publicOrigin = new URL(services.config.http.publicUrl).origin;
  const { publicUrlFixed } = services.config.http;
  return async (ctx, next) => {
    // The request's EntityManager is forked on first use: a route that reads no entity (settings, or a
    // detail read in one statement) does not pay for an identity map it never fills.
    let em: DomainContext['em'] | undefined;
    let actor: Actor = anonymous;
    const domain: DomainContext = {
      get em() {
        if (!em) {
          em = services.orm.em.fork();
          if (actor.userId) actAs(em, { userId: actor.userId });
        }
        return em;
      },
      config: services.config,
      get log() {
        return ctx.log;
      },
      jobs: services.jobs,
      storage: services.storage,
      search: services.search,
      credentials: services.credentials,
    };
    ctx.state.domain = domain;

    const ckan = ckanTokens(ctx.path);
    const authorization = ctx.get('Authorization') || (ckan ? ctx.get('X-CKAN-API-Key') : '');
    if (authorization) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization) ?? (ckan ? /^\s*(\S+)\s*$/.exec(authorization) : null);
      const user = match ? await userForToken(domain, match[1]) : null;
      if (!user) throw invalidToken();
      actor = { userId: user.id, sysadmin: user.sysadmin };
    } else {
      const unsafe = !SAFE_METHODS.has(ctx.method);
      const origin = requestOrigin(ctx);
      const allowed = origin !== undefined && (origin === publicOrigin || (!publicUrlFixed && origin === `${ctx.protocol}://${ctx.host}`));
      // A browser posting from another site must not act with our cookie, nor log someone in (login CSRF).
      if (unsafe && origin !== undefined && !allowed) throw forbidden('Cross-origin request refused: the Origin does not match this site.');
      // Koa builds a cookie jar on first use of ctx.cookies: most API calls carry no cookie at all.
      const secret = ctx.get('Cookie') ? ctx.cookies.get(sessionCookieName(ctx)) : undefined;
      const user = secret ? await userForSession(domain, secret) : null;
      if (user) {
        if (unsafe && !allowed) throw forbidden('A cookie-authenticated change must come with an Origin header from this site.');
        actor = { userId: user.id, sysadmin: user.sysadmin };
      }
    }
    ctx.state.actor = actor;
    // What this request changes is recorded as its user's (src/domain/activity).
    if (em && actor.userId) actAs(em, { userId: actor.userId });
    await next();
  };
}

function requestOrigin(ctx: Context): string | undefined {
  const origin = ctx.get('Origin');
  if (origin && origin !== 'null') return origin;
  const referer = ctx.get('Referer');
  if (!referer) return origin === 'null' ? 'null' : undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return 'null';
  }
}
