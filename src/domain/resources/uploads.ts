import { createHash, randomBytes } from 'node:crypto';
import { PassThrough, pipeline, Transform, type Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Resource } from '../../entities/index.ts';
import { authorize } from '../../policies/index.ts';
import { fileKey, resourceIdOfKey, uploadKey } from '../../storage/keys.ts';
import { LocalObjectStore } from '../../storage/local.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import {
  conflict,
  invalidSignature,
  notFound,
  uploadSessionClosed,
  uploadSizeMismatch,
  uploadTooLarge,
  uploadUrlExpired,
  validationFailed,
} from '../errors.ts';
import { invalidateOutputs } from '../pipeline/record.ts';
import { keepServedAsVersion } from '../pipeline/version-record.ts';
import { startPipeline } from '../pipeline/start.ts';
import { loadVisibleResource } from './resources.ts';
import { presentResource } from './present.ts';
import { completedUploadOf, liveSourceKey, pendingUploadOf, type CompletedUpload, type PendingUpload } from './stored-objects.ts';

/**
 * Uploads, as sessions: an upload URL's bytes land on a key of their own (`uploads/<session>`) that
 * nothing serves; upload-complete verifies them (the declared size, the limit), moves them to the
 * session's file key and, in one locked database statement, makes that the resource's file with its
 * size and sha256. A proxied upload streams straight to a file key of its own. An abandoned, half-finished
 * or oversized upload therefore never replaces a good file, and an upload URL can no longer touch the
 * file once completed: the local store refuses it, and what S3 still takes is an orphan the sweeper removes.
 */

export interface UploadIntent {
  filename: string;
  contentType: string;
  size: number;
}

const newSession = () => randomBytes(12).toString('hex');

/** A resource the actor may change (editor of its dataset), of a dataset that is not deleted. */
export async function loadEditableResource(ctx: DomainContext, actor: Actor, id: string) {
  const loaded = await loadVisibleResource(ctx, actor, id);
  authorize(actor, 'dataset:edit', loaded.subject);
  if (loaded.subject.state === 'deleted') throw notFound('Resource');
  return loaded;
}

async function loadUploadResource(ctx: DomainContext, actor: Actor, id: string) {
  const loaded = await loadEditableResource(ctx, actor, id);
  if (loaded.resource.urlType !== 'upload') {
    throw conflict('This resource is a link; only resources created with urlType "upload" take files.');
  }
  return loaded;
}

/** A file name ends up in a Content-Disposition header and the database: control characters are refused before any byte is stored. */
function assertUsableFilename(filename: string | undefined, path: string) {
  // eslint-disable-next-line no-control-regex
  if (filename !== undefined && /[\u0000-\u001f\u007f]/.test(filename)) {
    throw validationFailed([{ path, message: 'must not contain control characters' }], 'The file name is not usable.');
  }
}

/** POST /resources/{id}/upload-url: a PUT straight to the store, for this many bytes, valid for UPLOAD_URL_TTL_SECONDS. */
export async function issueUploadUrl(ctx: DomainContext, actor: Actor, id: string, intent: UploadIntent) {
  const { resource } = await loadUploadResource(ctx, actor, id);
  if (intent.size > ctx.config.uploads.maxBytes) throw uploadTooLarge(ctx.config.uploads.maxBytes);
  assertUsableFilename(intent.filename, 'filename');
  const session = newSession();
  const signed = await ctx.storage.presignPut(uploadKey(resource.id, session), {
    contentType: intent.contentType,
    expiresInSeconds: ctx.config.uploads.urlTtlSeconds,
  });
  // The newest URL's session is the one completion takes; an older URL's bytes are never served.
  const pending: PendingUpload = {
    session,
    filename: intent.filename,
    contentType: intent.contentType,
    size: intent.size,
    at: new Date().toISOString(),
    expiresAt: signed.expiresAt.toISOString(),
  };
  await ctx.em.execute(`update resources set extras = extras || jsonb_build_object('pendingUpload', ?::jsonb) where id = ?`, [
    JSON.stringify(pending),
    resource.id,
  ]);
  return { url: signed.url, method: signed.method, headers: signed.headers, expiresAt: signed.expiresAt.toISOString() };
}

/** Counts and hashes bytes on their way through, and stops the stream past `max`. */
function measure(max: number, tooLarge: () => Error) {
  const hash = createHash('sha256');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > max) return done(tooLarge());
      hash.update(chunk);
      done(null, chunk);
    },
  });
  return { stream, result: () => ({ size, hash: hash.digest('hex') }) };
}

/**
 * Streams `body` into the store under `key`, never holding it whole: counted against `max`, hashed on
 * the way. Past the limit the write is abandoned and nothing is left under `key`.
 */
async function storeStream(
  ctx: DomainContext,
  key: string,
  body: Readable,
  contentType: string | undefined,
  max: number,
  tooLarge = () => uploadTooLarge(max),
) {
  const measured = measure(max, tooLarge);
  const out = new PassThrough();
  // The chain's first failure (the size limit, a dropped client) is the one to report; the store's own
  // error about the stream it was given only echoes it.
  let failure: Error | undefined;
  pipeline(body, measured.stream, out, (err) => {
    failure ??= err ?? undefined;
  });
  try {
    await ctx.storage.put(key, out, { contentType });
  } catch (err) {
    throw failure ?? err;
  }
  if (failure) throw failure;
  return measured.result();
}

/** A file's bytes stored under a key of their own, not yet the resource's file (completeReceivedUpload makes them so). */
export interface ReceivedUpload {
  key: string;
  filename?: string;
  contentType?: string;
  size: number;
  hash: string;
}

/**
 * Streams a file sent through the API into a new file key of `resourceId`, checked against the upload
 * limit: nothing about the resource changes, so a caller may store the bytes before it writes anything
 * else (resource_update with a file), and a file that cannot be stored has changed nothing.
 */
export async function receiveUpload(
  ctx: DomainContext,
  resourceId: string,
  body: Readable,
  meta: { contentType?: string; contentLength?: number; filename?: string },
): Promise<ReceivedUpload> {
  const max = ctx.config.uploads.maxBytes;
  try {
    assertUsableFilename(meta.filename, 'filename');
    if (meta.contentLength !== undefined && meta.contentLength > max) throw uploadTooLarge(max);
  } catch (err) {
    body.resume(); // answer now, without waiting for a body nobody will store
    throw err;
  }
  const key = fileKey(resourceId, newSession());
  const { size, hash } = await storeStream(ctx, key, body, meta.contentType, max);
  return { key, filename: meta.filename, contentType: meta.contentType, size, hash };
}

async function promoteReceived(ctx: DomainContext, resource: Resource, received: ReceivedUpload) {
  const { key, filename, contentType, size, hash } = received;
  await promote(ctx, resource.id, { key, filename, contentType, at: new Date().toISOString() }, { size, hash }, null);
  return startPipelineAndPresent(ctx, resource);
}

/** POST /resources/{id}/upload: the bytes through the API into a session of their own, then completed at once. */
export async function uploadThroughApi(
  ctx: DomainContext,
  actor: Actor,
  id: string,
  body: Readable,
  meta: { contentType?: string; contentLength?: number; filename?: string },
) {
  const { resource } = await loadUploadResource(ctx, actor, id);
  return promoteReceived(ctx, resource, await receiveUpload(ctx, resource.id, body, meta));
}

/** Bytes received earlier (receiveUpload) become the file of an upload resource the actor may edit, and the pipeline runs. */
export async function completeReceivedUpload(ctx: DomainContext, actor: Actor, id: string, received: ReceivedUpload) {
  const { resource } = await loadUploadResource(ctx, actor, id);
  return promoteReceived(ctx, resource, received);
}

/**
 * PUT to a URL from upload-url on the local store: the signature is the credential (no login). It names
 * the session's key, so it writes only while that session is the resource's pending upload, and at most
 * the declared size.
 */
export async function acceptSignedUpload(
  ctx: DomainContext,
  presented: { key: string; expires: string; signature: string; contentType: string },
  body: Readable,
  contentLength: number | undefined,
) {
  if (!(ctx.storage instanceof LocalObjectStore)) throw notFound('The upload URL');
  const verdict = ctx.storage.verifyPresignedPut(presented);
  if (!verdict.ok) {
    throw verdict.reason === 'expired' ? uploadUrlExpired() : invalidSignature();
  }
  const pending = await openSession(ctx.em, presented.key);
  if (!pending) throw uploadSessionClosed();
  const max = ctx.config.uploads.maxBytes;
  const declared = Math.min(pending.size ?? max, max);
  if (contentLength !== undefined && contentLength > max) throw uploadTooLarge(max);
  if (contentLength !== undefined && pending.size !== undefined && contentLength !== pending.size) {
    throw uploadSizeMismatch(contentLength, pending.size);
  }
  const { size } = await storeStream(ctx, presented.key, body, presented.contentType, declared, () =>
    declared < max ? uploadSizeMismatch(null, declared) : uploadTooLarge(max),
  );
  if (pending.size !== undefined && size !== pending.size) {
    await ctx.storage.remove(presented.key);
    throw uploadSizeMismatch(size, pending.size);
  }
  // Completed, replaced or deleted while the bytes came in: they belong to no one.
  if (!(await openSession(ctx.em, presented.key))) {
    await ctx.storage.remove(presented.key);
    throw uploadSessionClosed();
  }
  return { size };
}

/** The pending upload whose key this is, or null when no resource waits for bytes there. */
async function openSession(em: EntityManager, key: string): Promise<PendingUpload | null> {
  const resourceId = resourceIdOfKey(key);
  const session = key.split('/').at(-1);
  if (!resourceId || key !== uploadKey(resourceId, session ?? '')) return null;
  const [row] = await em.execute<{ pending: PendingUpload | null }[]>(
    `select extras->'pendingUpload' as pending from resources where id::text = ? and url_type = 'upload'`,
    [resourceId],
  );
  return row?.pending?.session === session ? row.pending : null;
}

/**
 * POST /resources/{id}/upload-complete: verifies the pending session's bytes (there, the declared size,
 * within the limit), hashes them and makes them the resource's file. Repeating it after it succeeded
 * re-runs the pipeline over the same file.
 */
export async function completeUpload(ctx: DomainContext, actor: Actor, id: string) {
  const { resource } = await loadUploadResource(ctx, actor, id);
  const pending = pendingUploadOf(resource);
  if (!pending) {
    if (!resource.url) throw conflict('No upload is pending: ask for an upload URL, PUT the file to it, then complete it.');
    return startPipelineAndPresent(ctx, resource);
  }
  const staged = uploadKey(resource.id, pending.session);
  const key = fileKey(resource.id, pending.session);
  // Already moved by a completion cut short before its database write: resume from there.
  const stat = (await ctx.storage.stat(staged)) ?? (await ctx.storage.stat(key));
  if (!stat) throw conflict('No file has been uploaded for this resource yet: PUT it to the upload URL first.');
  const max = ctx.config.uploads.maxBytes;
  // An S3 presigned PUT takes any size: the limits are enforced here, and what broke them is not kept.
  if (stat.size > max || (pending.size !== undefined && stat.size !== pending.size)) {
    await Promise.all([ctx.storage.remove(staged), ctx.storage.remove(key)]);
    throw stat.size > max ? uploadTooLarge(max) : uploadSizeMismatch(stat.size, pending.size!);
  }
  if (await ctx.storage.stat(staged)) await ctx.storage.move(staged, key);
  // Hashed where it is served from: a PUT that still reaches the upload URL cannot change these bytes.
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of await ctx.storage.read(key)) {
    size += (chunk as Buffer).length;
    hash.update(chunk as Buffer);
  }
  if (size !== stat.size) throw conflict('The upload changed while it was being completed; complete it again.');
  const file = {
    key,
    filename: pending.filename,
    contentType: pending.contentType ?? stat.contentType ?? undefined,
    at: new Date().toISOString(),
  };
  await promote(ctx, resource.id, file, { size, hash: hash.digest('hex') }, pending.session);
  return startPipelineAndPresent(ctx, resource);
}

/**
 * Makes `file` the resource's file in one statement under the row's lock: size, sha256, type and URL
 * change together, the pending session (when `session` names it) closes, and what the pipeline made of
 * the old bytes stops being served. The old file goes after the commit, unless a version keeps it. A resource deleted meanwhile
 * gets nothing: the new bytes are removed, not orphaned.
 */
async function promote(
  ctx: DomainContext,
  resourceId: string,
  file: CompletedUpload & { key: string },
  bytes: { size: number; hash: string },
  session: string | null,
) {
  const stale = await ctx.em.transactional(async (tx) => {
    const [current] = await tx.execute<{ id: string; url: string | null; urlType: 'upload'; extras: Resource['extras'] }[]>(
      `select id, url, url_type as "urlType", extras from resources where id = ? for update`,
      [resourceId],
    );
    if (!current) return null;
    if (session !== null && pendingUploadOf(current)?.session !== session) {
      // Completed by a concurrent request (same file: nothing to do) or replaced by a newer upload URL.
      if (completedUploadOf(current)?.key === file.key) return [];
      throw uploadSessionClosed();
    }
    const previous = current.url ? liveSourceKey(current) : null;
    // Described by the record before it changes: a preview from before versions existed stays reachable.
    await keepServedAsVersion(tx, resourceId);
    await tx.execute(
      `update resources set size = ?, hash = ?, mimetype = ?, url = ?, updated_at = now(),
         extras = (extras - (case when ?::boolean then 'pendingUpload' else '' end)) || jsonb_build_object('upload', ?::jsonb)
       where id = ?`,
      [
        bytes.size,
        bytes.hash,
        file.contentType || 'application/octet-stream',
        `${ctx.config.http.publicUrl}/api/v1/resources/${resourceId}/download`,
        session !== null,
        JSON.stringify(file),
        resourceId,
      ],
    );
    return invalidateOutputs(tx, resourceId, previous && previous !== file.key ? [previous] : []);
  });
  if (stale === null) {
    await ctx.storage.remove(file.key);
    throw notFound('Resource');
  }
  await Promise.all(stale.map((key) => ctx.storage.remove(key)));
}

async function startPipelineAndPresent(ctx: DomainContext, resource: Resource) {
  await startPipeline(ctx, resource.id);
  await ctx.em.refresh(resource);
  return presentResource(resource);
}
