import { pipeline, type Readable } from 'node:stream';
import busboy from 'busboy';
import type { Context } from 'koa';
import { invalidMultipart, payloadTooLarge, validationFailed } from '../../domain/errors.ts';

/** A file sent with an action (`upload`, as ckanapi sends `files={'upload': f}`): read as it arrives. */
export interface ActionFile {
  stream: Readable;
  filename?: string;
  contentType?: string;
}

/**
 * The actions that take a file: their requests are uploads to the request deadlines (an idle timeout,
 * not the whole-request one), like POST /resources/{id}/upload.
 */
export const CKAN_UPLOAD_PATHS = [/^\/api(\/3)?\/action\/resource_(create|update|patch)$/];

export const isMultipart = (ctx: Context) => !!ctx.get('Content-Type')?.toLowerCase().startsWith('multipart/form-data');

/** Form fields: a body's parameters are text; a file's is only its size, and never a field value. */
const LIMITS = { fields: 1_000, fieldSize: 1 << 20, parts: 1_100 };

/**
 * The fields of a `multipart/form-data` action call and its `upload` file, as a stream that is never
 * buffered: CKAN's clients send the fields first, so the parameters are whole when the file begins (a
 * field after the file is not read). A file for package_revise's keys (`…__upload`) is refused; any other file part is skipped.
 */
export function readMultipart(
  ctx: Context,
  maxFieldBytes: number,
): Promise<{ fields: Record<string, string | string[]>; file?: ActionFile }> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: ctx.req.headers, limits: LIMITS, defParamCharset: 'utf8' });
    } catch (err) {
      return reject(invalidMultipart((err as Error).message));
    }
    const fields: Record<string, string | string[]> = {};
    // The fields together are held to the cap of any other body: a thousand 1 MB fields would be a gigabyte.
    let fieldBytes = 0;
    let settled = false;
    const settle = (file?: ActionFile) => {
      if (settled) return;
      settled = true;
      resolve({ fields, file });
    };
    parser.on('field', (name, value, info) => {
      if (settled) return;
      if (info.valueTruncated || info.nameTruncated) {
        settled = true;
        return reject(payloadTooLarge(`A form field is larger than ${LIMITS.fieldSize} bytes.`));
      }
      fieldBytes += Buffer.byteLength(name) + Buffer.byteLength(value);
      if (fieldBytes > maxFieldBytes) {
        settled = true;
        return reject(payloadTooLarge(`The form fields are larger than ${maxFieldBytes} bytes together.`));
      }
      const prev = Object.hasOwn(fields, name) ? fields[name] : undefined;
      fields[name] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value];
    });
    parser.on('file', (name, stream, info) => {
      // A connection that closes mid-file errors the file stream: its reader hears it, and a file no one
      // reads (skipped, or left by an action that refused the call first) must not crash the process.
      stream.on('error', () => undefined);
      // package_revise's form for a new resource's file (`update__resources__0__upload`): not taken here, and
      // said so, rather than a call that succeeds without its file.
      if (!settled && name.endsWith('__upload')) {
        settled = true;
        stream.resume();
        return reject(
          validationFailed(
            [{ path: name, message: 'A file is taken only as "upload", by resource_create, resource_update and resource_patch' }],
            'This call cannot take a file.',
          ),
        );
      }
      if (settled || name !== 'upload') return stream.resume();
      settle({ stream, filename: info.filename, contentType: info.mimeType });
    });
    parser.on('error', (err) => (settled ? undefined : ((settled = true), reject(invalidMultipart((err as Error).message)))));
    parser.on('close', () => settle());
    // As the proxied upload: a client that goes away ends the parser, and the file being stored, with an error.
    pipeline(ctx.req, parser, () => undefined);
    // Once an answer went out (a 408 at the upload's idle timeout), Node no longer ends the request when its
    // connection closes: the parser is ended here, or the file being stored would wait for bytes forever.
    const socket = ctx.req.socket;
    const onClose = () => (ctx.req.complete ? undefined : parser.destroy(new Error('The connection closed before the body ended')));
    socket.once('close', onClose);
    ctx.req.once('end', () => socket.off('close', onClose));
  });
}
