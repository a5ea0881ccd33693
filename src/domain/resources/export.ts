import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { withCallerLock } from '../../query/caller-lock.ts';
import { EXPORT_MEDIA_TYPES, exportFilename, type ExportFormat } from '../../query/export-formats.ts';
import type { ExportReady } from '../../query/export-run.ts';
import { relayFifo, type FifoRelay } from '../../query/fifo-relay.ts';
import { localPreview } from '../../query/preview-cache.ts';
import { runInQueryProcess } from '../../query/process-pool.ts';
import { QUERY_LIMITS, QueryError, type QueryLimits } from '../../query/sandbox.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { notQueryable, queryFailed, queryTooLong, tooManyRequests } from '../errors.ts';
import { servedPreviewKey, type PreviewRecord } from '../pipeline/preview-record.ts';
import { loadReadableResource } from './access-query.ts';
import { MAX_SQL_CHARS } from './query.ts';

/**
 * A whole resource's export: no row or byte cap, and a deadline long enough for a slow client to read a
 * large preview (the deadline counts the client's reading too, since the export writes as it reads).
 */
export const WHOLE_EXPORT_LIMITS: QueryLimits = { ...QUERY_LIMITS, timeoutMs: 10 * 60_000 };

let wholeExportsRunning = 0;

export interface ResourceExport {
  /**
   * Streams the rows into `out` (the HTTP answer), which it ends once they are all there, or destroys
   * if the export fails after the first byte.
   */
  sendTo(out: Writable): void;
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
 * query process is about to write, so that a refused query is still a problem answer; from then on
 * `sendTo` carries the bytes as they come, and a failure (the deadline, a broken process) cuts it short
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
  // The read end, opened when the query process says ready; relayed to the answer once there is one.
  let fd: number | undefined;
  let relay: FifoRelay | undefined;
  let answer: Writable | undefined;
  let failure: Error | undefined;
  let settled = false;
  const cleanUp = () => {
    if (settled) return;
    settled = true;
    if (whole) wholeExportsRunning--;
    fs.rm(fifo, { force: true }, () => undefined);
  };

  let onReady!: (ready: ExportReady) => void;
  const ready = new Promise<ExportReady>((resolve) => (onReady = resolve));
  let onAnswer!: (out: Writable) => void;
  const answered = new Promise<Writable>((resolve) => (onAnswer = resolve));
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
  const opened = ready.then(() => {
    fd = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  });
  // The bytes are whole only once the writer closed its end and the query process said it succeeded.
  // A relay stopped before its end (the client went away after the last write) rejects, so the slot and
  // the FIFO are let go all the same.
  const drained = Promise.all([opened, answered]).then(([, out]) => {
    relay = relayFifo(fd!, out);
    return relay.done;
  });
  Promise.all([finished, drained]).then(
    () => {
      cleanUp();
      answer?.end();
    },
    (err: unknown) => {
      cleanUp();
      failure = err instanceof Error ? err : new Error(String(err));
      if (relay) relay.stop();
      else if (fd !== undefined) fs.close(fd, () => undefined);
      // Cut rather than ended: the client must not take a short file for a whole one.
      answer?.destroy(failure);
    },
  );

  let started: ExportReady;
  try {
    started = await Promise.race([ready, finished.then(() => ready)]);
    await opened;
  } catch (err) {
    if (err instanceof QueryError) throw queryFailed(err.code, err.message);
    throw err;
  }
  const sendTo = (out: Writable) => {
    // Failed between the query process's ready and this answer: nothing was sent, and nothing will be.
    if (failure) return void out.destroy(failure);
    answer = out;
    onAnswer(out);
  };
  return {
    sendTo,
    mediaType: EXPORT_MEDIA_TYPES[request.format],
    filename: exportFilename(resource.name, request.format, whole ? '' : '-query'),
    rowCount: whole ? (preview.schema?.rowCount ?? null) : started.rowCount,
    truncated: whole ? (preview.schema?.previewTruncated ?? false) : started.truncated,
  };
}
