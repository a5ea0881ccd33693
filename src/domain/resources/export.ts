import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { withCallerLock } from '../../query/caller-lock.ts';
import { EXPORT_MEDIA_TYPES, exportFilename, type ExportFormat } from '../../query/export-formats.ts';
import type { ExportReady } from '../../query/export-run.ts';
import { localPreview } from '../../query/preview-cache.ts';
import { runInQueryProcess } from '../../query/process-pool.ts';
import { QUERY_LIMITS, QueryError, type QueryLimits } from '../../query/sandbox.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { notQueryable, queryFailed, queryTooLong, tooManyRequests } from '../errors.ts';
import { servedPreviewKey, type PreviewRecord } from '../pipeline/preview-record.ts';
import { loadReadableResource } from './access-query.ts';
import { MAX_SQL_CHARS } from './query.ts';
import { finished as streamFinished } from 'node:stream/promises';

/**
 * A whole resource's export: no row or byte cap, and a deadline long enough for a slow client to read a
 * large preview (the deadline counts the client's reading too, since the export writes as it reads).
 */
export const WHOLE_EXPORT_LIMITS: QueryLimits = { ...QUERY_LIMITS, timeoutMs: 10 * 60_000 };

let wholeExportsRunning = 0;

export interface ResourceExport {
  body: Readable;
  mediaType: string;
  filename: string;
  /**
   * The rows sent, and whether some were left out: by the query's cap for a result; for the whole
   * resource, because its preview covers only the first PREVIEW_MAX_BYTES of the file.
   */
  rowCount: number | null;
  truncated: boolean;
}

/**
 * GET /resources/{id}/download?format= (sql null: the whole preview) and POST /resources/{id}/query?format=
 * (the query's result, capped as its JSON answer is): the rows in `format`, streamed. Resolves once the
 * query process is about to write, so that a refused query is still a problem answer; from then on the
 * body carries the bytes as they come, and a failure (the deadline, a broken process) cuts it short
 * rather than ending it as if complete. Holds the caller's query lock until the last byte; whole exports
 * also take one of a few slots per API process (half the query processes), so exports cannot take every
 * query process.
 */
export async function exportResource(
  ctx: DomainContext,
  actor: Actor,
  id: string,
  request: { format: ExportFormat; sql: string | null },
  caller: string,
): Promise<ResourceExport> {
  const { resource } = await loadReadableResource(ctx, actor, id);
  const preview = resource.extras.preview as PreviewRecord | null | undefined;
  if (resource.extras.queryable !== true || !preview?.createdAt) throw notQueryable();
  if (request.sql !== null && request.sql.length > MAX_SQL_CHARS) throw queryTooLong(MAX_SQL_CHARS);
  const whole = request.sql === null;
  const maxProcesses = ctx.config.query.maxProcesses;
  if (whole && wholeExportsRunning >= Math.max(1, Math.floor(maxProcesses / 2))) {
    throw tooManyRequests('query_busy', 'The server is running as many whole exports as it allows; try again shortly.', 5);
  }
  if (whole) wholeExportsRunning++;
  // A fresh, randomly named FIFO per export, which the query process makes (export-run.ts): forking this
  // process for mkfifo costs ~1 ms per 10 MB of its memory (60-250 ms in the bench), on the event loop.
  const fifoDir = path.join(ctx.config.dataDir, 'export-fifos');
  const fifo = path.join(fifoDir, `${randomBytes(12).toString('hex')}.fifo`);
  let source: net.Socket | undefined;
  const body = new PassThrough();
  // Koa listens once the body is the answer's; a failure before that is answered as a problem instead.
  body.on('error', () => undefined);
  let settled = false;
  const cleanUp = () => {
    if (settled) return;
    settled = true;
    if (whole) wholeExportsRunning--;
    fs.rm(fifo, { force: true }, () => undefined);
  };

  let onReady!: (ready: ExportReady) => void;
  const ready = new Promise<ExportReady>((resolve) => (onReady = resolve));
  const finished = (async () => {
    await fsp.mkdir(fifoDir, { recursive: true, mode: 0o700 });
    const file = await localPreview(ctx.storage, path.join(ctx.config.dataDir, 'query-cache'), servedPreviewKey(resource.id, preview));
    const job = {
      parquetPath: file,
      sql: request.sql ?? '',
      limits: whole ? WHOLE_EXPORT_LIMITS : QUERY_LIMITS,
      export: { format: request.format, fifo, sql: request.sql },
    };
    const outcome = await withCallerLock(ctx.em, caller, () => runInQueryProcess(job, maxProcesses, onReady));
    if (outcome === 'busy') throw tooManyRequests('query_busy', 'Another query or export of yours is still running; one at a time.', 1);
    return outcome;
  })();
  // The query process says ready once the FIFO exists, and opens its write end only after: the read end
  // is opened then, non-blocking, and waits in the event loop for the writer.
  const drained = ready.then(() => {
    source = new net.Socket({ fd: fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK), readable: true, writable: false });
    if (body.destroyed) source.destroy();
    // The bytes are whole only once the writer closed its end and the query process said it succeeded.
    // A source destroyed before its end (the client went away after the last write) rejects, so the slot
    // and the FIFO are let go all the same: a destroyed socket never emits 'end'.
    return streamFinished(source, { readable: true, writable: false });
  });
  Promise.all([finished, drained]).then(
    () => {
      cleanUp();
      body.end();
    },
    (err: unknown) => {
      cleanUp();
      source?.destroy();
      body.destroy(err instanceof Error ? err : new Error(String(err)));
    },
  );
  // The client went away (or the answer was cut): the query process's next write fails and it stops.
  body.once('close', () => source?.destroy());

  let started: ExportReady;
  try {
    started = await Promise.race([ready, finished.then(() => ready)]);
  } catch (err) {
    source?.destroy();
    body.destroy();
    if (err instanceof QueryError) throw queryFailed(err.code, err.message);
    throw err;
  }
  // drained's callback ran before this one (it was registered first): the read end is open, or failed to.
  if (!source) throw new Error('the export FIFO could not be opened');
  source.pipe(body, { end: false });
  return {
    body,
    mediaType: EXPORT_MEDIA_TYPES[request.format],
    filename: exportFilename(resource.name, request.format, whole ? '' : '-query'),
    rowCount: whole ? (preview.schema?.rowCount ?? null) : started.rowCount,
    truncated: whole ? (preview.schema?.previewTruncated ?? false) : started.truncated,
  };
}
