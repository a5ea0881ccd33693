import { hash } from 'node:crypto';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { Context, Middleware, Next } from 'koa';
import compress from 'koa-compress';
import { compressInPlace } from './compress-in-place.ts';

/** Metadata answers (JSON, RDF, HTML, text); files are sent as stored, so their ranges and lengths hold. */
const COMPRESSIBLE = /json|turtle|rdf\+xml|n-triples|n-quads|trig|html|text\/plain/;

/** gzip or brotli for answers over 1 KB whose client accepts it; never a file download. */
export function compression(): Middleware {
  const compressing = compress({
    threshold: 1024,
    filter: (type) => COMPRESSIBLE.test(type),
    // Brotli's default quality (11) costs tens of milliseconds on a big list; 4 compresses about as well as gzip, faster.
    br: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } },
  });
  const inPlace = async (ctx: Context, next: Next) => {
    await next();
    compressInPlace(ctx, (type) => COMPRESSIBLE.test(type));
  };
  return (ctx, next) => (ctx.path.endsWith('/download') ? next() : compressing(ctx, () => inPlace(ctx, next)));
}

/**
 * Public answers are revalidated rather than refetched: an anonymous GET answered 200 gets
 * `Cache-Control: public, max-age=0, must-revalidate`, a weak ETag of its bytes and `Vary: Authorization,
 * Cookie`, and a request whose If-None-Match names that ETag gets 304 with no body. Anything answered to
 * a caller with a token or a session, any answer setting a cookie, any other status and any streamed
 * answer keep `no-store`: they may hold what only that caller may see, or change at any moment.
 */
export function publicRevalidation(): Middleware {
  return async (ctx, next) => {
    await next();
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.status !== 200) return;
    // Set by authenticate: requests that never reached it (health, docs) keep their own headers.
    const actor = ctx.state.actor as { userId: string | null } | undefined;
    if (!actor || actor.userId !== null || ctx.response.get('Set-Cookie')) return;
    const body = ctx.body;
    if (body === null || body === undefined || body instanceof Readable) return;
    const bytes = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    if (bytes !== body) ctx.body = bytes;
    // One-shot hashing: a Hash object per answer was a visible share of a small read (bench reads).
    ctx.set('ETag', `W/"${hash('sha1', bytes, 'base64url')}"`);
    ctx.set('Cache-Control', 'public, max-age=0, must-revalidate');
    ctx.vary('Authorization');
    ctx.vary('Cookie');
    if (ctx.fresh) {
      ctx.status = 304;
      ctx.body = null;
    }
  };
}
