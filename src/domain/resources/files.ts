import { createHash } from 'node:crypto';
import { PassThrough, pipeline, Transform, type Readable } from 'node:stream';
import { pipeline as pump } from 'node:stream/promises';
import { Resource } from '../../entities/index.ts';
import { authorize } from '../../policies/index.ts';
import { sourceKey } from '../../storage/keys.ts';
import { LocalObjectStore } from '../../storage/local.ts';
import { pipelineWorkflowId } from '../jobs/ids.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { conflict, invalidSignature, noPreview, notFound, notText, uploadTooLarge, uploadUrlExpired } from '../errors.ts';
import { markQueued, presentPipelineStatus } from '../pipeline/record.ts';
import { loadVisibleResource } from './resources.ts';
import { presentResource } from './present.ts';
import type { TableSchema } from '../../tabular/column-schema.ts';

/**
 * The bytes of upload resources: presigned and proxied uploads, completion, and what the pipeline made
 * of them (status, schema). Reads go through the dataset's visibility like every other path.
 */

export interface UploadIntent {
  filename: string;
  contentType: string;
  size: number;
}

interface UploadInfo {
  filename?: string;
  contentType?: string;
}

/** A resource the actor may change (editor of its dataset), of a dataset that is not deleted. */
async function loadEditableResource(ctx: DomainContext, actor: Actor, id: string) {
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

/**
 * What the uploader said of the file (`upload`: name and type), kept apart while it is only an intent
 * (`pendingUpload`, from upload-url): the current file keeps its name until new bytes are complete.
 */
async function rememberUpload(ctx: DomainContext, resourceId: string, info: UploadInfo, as: 'upload' | 'pendingUpload') {
  await ctx.em.execute(`update resources set extras = extras || jsonb_build_object(?::text, ?::jsonb) where id = ?`, [
    as,
    JSON.stringify({ ...info, at: new Date().toISOString() }),
    resourceId,
  ]);
}

/** POST /resources/{id}/upload-url: a PUT straight to the store, valid for UPLOAD_URL_TTL_SECONDS. */
export async function issueUploadUrl(ctx: DomainContext, actor: Actor, id: string, intent: UploadIntent) {
  const { resource } = await loadUploadResource(ctx, actor, id);
  if (intent.size > ctx.config.uploads.maxBytes) throw uploadTooLarge(ctx.config.uploads.maxBytes);
  await rememberUpload(ctx, resource.id, { filename: intent.filename, contentType: intent.contentType }, 'pendingUpload');
  const signed = await ctx.storage.presignPut(sourceKey(resource.id), {
    contentType: intent.contentType,
    expiresInSeconds: ctx.config.uploads.urlTtlSeconds,
  });
  return { url: signed.url, method: signed.method, headers: signed.headers, expiresAt: signed.expiresAt.toISOString() };
}

/** Counts and hashes bytes on their way through, and stops the stream past `max`. */
function measure(max: number) {
  const hash = createHash('sha256');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > max) return done(uploadTooLarge(max));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  return { stream, result: () => ({ size, hash: hash.digest('hex') }) };
}

/**
 * Streams `body` into the store under `key`, never holding it whole: counted against `max`, hashed on
 * the way. Past the limit the write is abandoned and the previous object, if any, stays.
 */
export async function storeStream(ctx: DomainContext, key: string, body: Readable, contentType: string | undefined, max: number) {
  const measured = measure(max);
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

/** POST /resources/{id}/upload: the bytes through the API, then completed as upload-complete would. */
export async function uploadThroughApi(
  ctx: DomainContext,
  actor: Actor,
  id: string,
  body: Readable,
  meta: { contentType?: string; contentLength?: number; filename?: string },
) {
  const { resource } = await loadUploadResource(ctx, actor, id);
  const max = ctx.config.uploads.maxBytes;
  if (meta.contentLength !== undefined && meta.contentLength > max) throw uploadTooLarge(max);
  const { size, hash } = await storeStream(ctx, sourceKey(resource.id), body, meta.contentType, max);
  await rememberUpload(ctx, resource.id, { filename: meta.filename, contentType: meta.contentType }, 'upload');
  await ctx.em.refresh(resource);
  return complete(ctx, resource, { size, hash, contentType: meta.contentType });
}

/**
 * POST /resources/{id}/upload-complete: checks the bytes are there, records size, sha256 and type, and
 * (re)starts the pipeline. Repeating it is safe: it measures the same object again.
 */
export async function completeUpload(ctx: DomainContext, actor: Actor, id: string) {
  const { resource } = await loadUploadResource(ctx, actor, id);
  const stat = await ctx.storage.stat(sourceKey(resource.id));
  if (!stat) throw conflict('No file has been uploaded for this resource yet: PUT it to the upload URL first.');
  const max = ctx.config.uploads.maxBytes;
  // An S3 presigned PUT takes any size: the limit is enforced here, and what broke it is not kept.
  if (stat.size > max) {
    await ctx.storage.remove(sourceKey(resource.id));
    throw uploadTooLarge(max);
  }
  const hash = createHash('sha256');
  await pump(await ctx.storage.read(sourceKey(resource.id)), hash);
  const pending = resource.extras.pendingUpload as UploadInfo | undefined;
  if (pending) {
    await ctx.em.execute(
      `update resources set extras = (extras - 'pendingUpload') || jsonb_build_object('upload', extras->'pendingUpload') where id = ?`,
      [resource.id],
    );
    await ctx.em.refresh(resource);
  }
  const contentType = (resource.extras.upload as UploadInfo | undefined)?.contentType ?? stat.contentType ?? undefined;
  return complete(ctx, resource, { size: stat.size, hash: hash.digest('hex'), contentType });
}

async function complete(ctx: DomainContext, resource: Resource, bytes: { size: number; hash: string; contentType?: string }) {
  resource.size = bytes.size;
  resource.hash = bytes.hash;
  resource.mimetype = bytes.contentType || resource.mimetype || 'application/octet-stream';
  resource.url = `${ctx.config.http.publicUrl}/api/v1/resources/${resource.id}/download`;
  await ctx.em.flush();
  await startPipeline(ctx, resource.id);
  await ctx.em.refresh(resource);
  return presentResource(resource);
}

async function startPipeline(ctx: DomainContext, resourceId: string) {
  // Queued before the start, so the run's own "running" can never be overwritten by this request.
  await markQueued(ctx.em, resourceId, pipelineWorkflowId(resourceId));
  await ctx.jobs.startPipeline(resourceId);
}

/** POST /resources/{id}/run-pipeline: again over the current bytes (an upload needs them first). */
export async function runPipeline(ctx: DomainContext, actor: Actor, id: string) {
  const { resource } = await loadEditableResource(ctx, actor, id);
  if (!resource.url) throw conflict('No file has been uploaded for this resource yet.');
  await startPipeline(ctx, resource.id);
  await ctx.em.refresh(resource);
  return presentPipelineStatus(resource.id, resource.extras);
}

export async function pipelineStatus(ctx: DomainContext, actor: Actor, id: string) {
  const { resource } = await loadVisibleResource(ctx, actor, id);
  return presentPipelineStatus(resource.id, resource.extras);
}

/** GET /resources/{id}/schema: the spec's schema record; unqueryable until a preview exists. */
export async function resourceSchema(ctx: DomainContext, actor: Actor, id: string) {
  const { resource } = await loadVisibleResource(ctx, actor, id);
  const preview = resource.extras.preview as { schema?: TableSchema } | null | undefined;
  const queryable = resource.extras.queryable === true && !!preview?.schema;
  return { id: resource.id, queryable, schema: queryable ? preview!.schema! : null };
}

export interface StoredObject {
  key: string;
  size: number;
  contentType: string;
  filename: string;
}

const filenameOf = (resource: Resource) => (resource.extras.upload as UploadInfo | undefined)?.filename || resource.name || resource.id;

/** GET /resources/{id}/download: a link is a redirect; an upload, its stored bytes. */
export async function openDownload(ctx: DomainContext, actor: Actor, id: string): Promise<{ redirect: string } | StoredObject> {
  const { resource } = await loadVisibleResource(ctx, actor, id);
  if (resource.urlType === 'link') {
    if (!resource.url) throw notFound('The file');
    return { redirect: resource.url };
  }
  const stat = resource.url ? await ctx.storage.stat(sourceKey(resource.id)) : null;
  if (!stat) throw notFound('The file');
  return {
    key: sourceKey(resource.id),
    size: stat.size,
    contentType: resource.mimetype || 'application/octet-stream',
    filename: filenameOf(resource),
  };
}

/**
 * GET /resources/{id}/preview: the first PREVIEW_MAX_BYTES of the bytes, served by Almanac (so a
 * browser can show a remote file, in ranges): an upload's own bytes, or the copy the pipeline fetched
 * of a link.
 */
export async function openPreview(ctx: DomainContext, actor: Actor, id: string): Promise<StoredObject> {
  const { resource } = await loadVisibleResource(ctx, actor, id);
  return previewOf(ctx, resource);
}

async function previewOf(ctx: DomainContext, resource: Resource): Promise<StoredObject> {
  const stat = resource.url ? await ctx.storage.stat(sourceKey(resource.id)) : null;
  if (!stat) throw noPreview();
  const detected = resource.extras.detected as { mimetype?: string } | null | undefined;
  return {
    key: sourceKey(resource.id),
    size: Math.min(stat.size, ctx.config.pipeline.previewMaxBytes),
    contentType: resource.mimetype || detected?.mimetype || 'application/octet-stream',
    filename: filenameOf(resource),
  };
}

/**
 * GET /resources/{id}/text: the first PREVIEW_MAX_BYTES as UTF-8, decoded from the encoding the pipeline
 * detected. Binary formats have no text.
 */
export async function openText(ctx: DomainContext, actor: Actor, id: string) {
  const { resource } = await loadVisibleResource(ctx, actor, id);
  const detected = resource.extras.detected as { format?: string | null; text?: boolean } | null | undefined;
  if (detected && detected.text === false) {
    throw notText(detected.format);
  }
  const preview = resource.extras.preview as { encoding?: string } | null | undefined;
  return { ...(await previewOf(ctx, resource)), encoding: preview?.encoding ?? 'utf-8' };
}

/**
 * PUT to a URL from upload-url on the local store: the signature is the credential (no login), and it
 * names the key, the expiry and the content type.
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
  const max = ctx.config.uploads.maxBytes;
  if (contentLength !== undefined && contentLength > max) throw uploadTooLarge(max);
  const { size } = await storeStream(ctx, presented.key, body, presented.contentType, max);
  return { size };
}
