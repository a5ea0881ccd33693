import { pipeline, Transform } from 'node:stream';
import type { Context } from 'koa';
import { rangeNotSatisfiable } from '../domain/errors.ts';
import type { StoredObject } from '../domain/resources/files.ts';
import type { ObjectStore } from '../storage/object-store.ts';
import { sendProblem } from './problem.ts';
import { parseRange } from './range.ts';

/** RFC 6266: an ASCII fallback plus the exact UTF-8 name. */
export function contentDisposition(kind: 'attachment' | 'inline', filename: string) {
  const base = filename.split(/[\\/]/).pop() || 'download';
  const ascii = base.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(base)}`;
}

/**
 * Sends a stored object, whole or one byte range (206, or 416 when the range cannot be met). Files are
 * the publishers', not ours: a sandbox CSP keeps an uploaded HTML or SVG from running as this site.
 */
export async function sendObject(ctx: Context, storage: ObjectStore, object: StoredObject, kind: 'attachment' | 'inline') {
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('Content-Disposition', contentDisposition(kind, object.filename));
  ctx.set('Content-Security-Policy', "sandbox; default-src 'none'");
  const range = parseRange(ctx.get('Range') || undefined, object.size);
  if (range === 'unsatisfiable') {
    ctx.remove('Content-Disposition');
    sendProblem(ctx, rangeNotSatisfiable(object.size), {
      'Content-Range': `bytes */${object.size}`,
    });
    return;
  }
  const span = range ?? (object.size > 0 ? { start: 0, end: object.size - 1 } : null);
  ctx.status = range ? 206 : 200;
  // Set as is: Koa's ctx.type would add charset=utf-8 to a text type, whatever the bytes' encoding.
  // A stored type that is not a valid header value (a client's free text) must not break the download.
  ctx.set('Content-Type', /^[\x20-\x7e]+$/.test(object.contentType) ? object.contentType : 'application/octet-stream');
  if (range) ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${object.size}`);
  if (!span) {
    ctx.body = '';
    return;
  }
  ctx.body = await storage.read(object.key, span);
  ctx.length = span.end - span.start + 1;
}

/** Sends the object's bytes as UTF-8 text, decoded from `encoding` as they stream. */
export async function sendText(ctx: Context, storage: ObjectStore, object: StoredObject, encoding: string) {
  const decoder = new TextDecoder(encoding);
  ctx.status = 200;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.set('Content-Security-Policy', "sandbox; default-src 'none'");
  if (object.size === 0) {
    ctx.body = '';
    return;
  }
  const source = await storage.read(object.key, { start: 0, end: object.size - 1 });
  ctx.body = pipeline(
    source,
    new Transform({
      transform(chunk: Buffer, _enc, done) {
        done(null, decoder.decode(chunk, { stream: true }));
      },
      // A character cut by the size limit is dropped rather than shown as a replacement mark.
      flush(done) {
        done();
      },
    }),
    // Koa sees the error on the stream it was given; nothing more to do here.
    () => undefined,
  );
}
