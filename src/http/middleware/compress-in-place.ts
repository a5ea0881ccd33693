import zlib from 'node:zlib';
import type { Context } from 'koa';

/**
 * A body already in memory and not large is compressed in one synchronous call where it stands: through
 * koa-compress's zlib stream, a 30 KB JSON answer waited ~2 ms more for the stream's thread-pool round
 * trips than the ~0.5 ms the compression itself takes (bench datastore). Up to 64 KB the event loop is
 * held 1-4 ms at worst (brotli, text that hardly compresses), about what the stream's hops cost. Larger bodies, streams, and any request koa-compress must weigh more carefully
 * (a wildcard, a status other than 200) stay its own, compressed off the event loop.
 */
const IN_PLACE_MAX_BYTES = 64 * 1024;

/** koa-compress's order of preference among codings the client accepts equally, and its options. */
const CODINGS = {
  br: (body: Buffer | string) => zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }),
  gzip: (body: Buffer | string) => zlib.gzipSync(body),
  deflate: (body: Buffer | string) => zlib.deflateSync(body),
};
type Coding = keyof typeof CODINGS | 'identity';

/**
 * The coding koa-compress's negotiation picks for a plain `Accept-Encoding` list (codings with optional
 * q-values): the highest q, ties to the server's preference, identity (q of the lowest listed unless
 * named) last; undefined when the header has a wildcard or cannot be read, which koa-compress then decides.
 */
export function chosenCoding(header: string | undefined): Coding | undefined {
  if (!header || header.includes('*')) return undefined;
  const q = new Map<string, number>();
  for (const item of header.split(',')) {
    const m = /^\s*([\w-]+)\s*(?:;\s*q\s*=\s*([01](?:\.\d{0,3})?))?\s*$/i.exec(item);
    if (!m) return undefined;
    q.set(m[1].toLowerCase(), m[2] === undefined ? 1 : Number(m[2]));
  }
  if (!q.has('identity')) q.set('identity', Math.min(...q.values()));
  const order: Coding[] = [...(Object.keys(CODINGS) as Coding[]), 'identity'];
  const top = Math.max(...order.map((c) => q.get(c) ?? 0));
  return top > 0 ? order.find((c) => q.get(c) === top) : undefined;
}

/** After the answer is made, before koa-compress looks at it: a body it would compress, compressed here. */
export function compressInPlace(ctx: Context, compressible: (type: string) => boolean) {
  const body: unknown = ctx.body;
  if (typeof body !== 'string' && !Buffer.isBuffer(body)) return;
  const size = Buffer.byteLength(body);
  if (
    size < 1024 ||
    size > IN_PLACE_MAX_BYTES ||
    ctx.status !== 200 ||
    ctx.method === 'HEAD' ||
    ctx.res.headersSent ||
    !ctx.writable ||
    ctx.compress !== undefined ||
    ctx.response.get('Content-Encoding') ||
    ctx.response.get('Content-Range') ||
    /(?:^|,)\s*no-transform\s*(?:,|$)/.test(ctx.response.get('Cache-Control')) ||
    !compressible(ctx.response.type)
  )
    return;
  const coding = chosenCoding(ctx.request.headers['accept-encoding']);
  if (!coding || coding === 'identity') return;
  ctx.body = CODINGS[coding](body);
  ctx.set('Content-Encoding', coding);
}
