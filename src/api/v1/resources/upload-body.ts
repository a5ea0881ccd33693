import { pipeline, type Readable } from 'node:stream';
import busboy from 'busboy';
import type { Context } from 'koa';
import { invalidMultipart, uploadMissingFile } from '../../../domain/errors.ts';

export interface UploadBody {
  stream: Readable;
  contentType?: string;
  contentLength?: number;
  filename?: string;
}

/**
 * The bytes of POST /resources/{id}/upload, as a stream: the raw body, or the first file part of a
 * multipart/form-data body (read as it arrives, never buffered).
 */
export function uploadBody(ctx: Context): Promise<UploadBody> {
  const type = ctx.get('Content-Type') || undefined;
  const length = ctx.get('Content-Length');
  if (!type?.toLowerCase().startsWith('multipart/form-data')) {
    return Promise.resolve({ stream: ctx.req, contentType: type, contentLength: length ? Number(length) : undefined });
  }
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      // Browsers and fetch send file names as raw UTF-8, whatever RFC 7578's default charset says.
      parser = busboy({ headers: ctx.req.headers, limits: { files: 1 }, defParamCharset: 'utf8' });
    } catch (err) {
      return reject(invalidMultipart((err as Error).message));
    }
    let found = false;
    parser.on('file', (_name, stream, info) => {
      found = true;
      resolve({ stream, contentType: info.mimeType, filename: info.filename });
    });
    parser.on('error', (err) => (found ? undefined : reject(invalidMultipart((err as Error).message))));
    parser.on('close', () => (found ? undefined : reject(uploadMissingFile())));
    // pipeline, not pipe: a client that disconnects must end the parser (and the file stream being
    // stored) with an error, or the upload would wait for bytes that never come.
    pipeline(ctx.req, parser, () => undefined);
  });
}

/** A file name sent as `Content-Disposition: attachment; filename="…"` with a raw body. */
export function filenameFromHeaders(ctx: Context): string | undefined {
  const header = ctx.get('Content-Disposition');
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (star) {
    try {
      return decodeURIComponent(star[1]!);
    } catch {
      return undefined;
    }
  }
  return /filename="?([^";]+)"?/i.exec(header)?.[1];
}
