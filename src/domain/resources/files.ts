import type { Resource } from '../../entities/index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { conflict, noPreview, notFound, notText } from '../errors.ts';
import { presentPipelineStatus } from '../pipeline/record.ts';
import type { PreviewRecord } from '../pipeline/preview-record.ts';
import type { TableSchema } from '../../tabular/column-schema.ts';
import { loadReadableResource } from './access-query.ts';
import { loadVisibleResource } from './resources.ts';
import { completedUploadOf, liveSourceKey } from './stored-objects.ts';
import { startPipeline } from '../pipeline/start.ts';
import { loadEditableResource } from './uploads.ts';

/**
 * What the pipeline made of a resource's bytes (status, schema) and the bytes themselves (download,
 * preview, text). Reads go through the dataset's visibility like every other path.
 */

/** POST /resources/{id}/run-pipeline: again over the current bytes (an upload needs them first). */
export async function runPipeline(ctx: DomainContext, actor: Actor, id: string) {
  const { resource } = await loadEditableResource(ctx, actor, id);
  if (!resource.url) throw conflict('No file has been uploaded for this resource yet.');
  await startPipeline(ctx, resource.id);
  await ctx.em.refresh(resource);
  return presentPipelineStatus(resource.id, resource.extras);
}

export async function pipelineStatus(ctx: DomainContext, actor: Actor, id: string) {
  const { resource } = await loadReadableResource(ctx, actor, id);
  return presentPipelineStatus(resource.id, resource.extras);
}

/** GET /resources/{id}/schema: the spec's schema record; unqueryable until a preview exists. */
export async function resourceSchema(ctx: DomainContext, actor: Actor, id: string) {
  const { resource } = await loadReadableResource(ctx, actor, id);
  const preview = resource.extras.preview as PreviewRecord | null | undefined;
  const queryable = resource.extras.queryable === true && !!preview?.schema;
  return { id: resource.id, queryable, schema: queryable ? presentTableSchema(preview!.schema!) : null };
}

/** The spec's fields: a column's fingerprint is the schema diff's, opaque and no use to a reader. */
export function presentTableSchema({ rowCount, columns, previewTruncated }: TableSchema) {
  return { rowCount, columns: columns.map(({ fingerprint: _, ...column }) => column), previewTruncated };
}

export interface StoredObject {
  key: string;
  size: number;
  contentType: string;
  filename: string;
}

const filenameOf = (resource: Resource) => completedUploadOf(resource)?.filename || resource.name || resource.id;

/** GET /resources/{id}/download: a link is a redirect; an upload, its stored bytes. */
export async function openDownload(ctx: DomainContext, actor: Actor, id: string): Promise<{ redirect: string } | StoredObject> {
  const { resource } = await loadVisibleResource(ctx, actor, id);
  if (resource.urlType === 'link') {
    if (!resource.url) throw notFound('The file');
    return { redirect: resource.url };
  }
  const key = liveSourceKey(resource);
  const stat = resource.url ? await ctx.storage.stat(key) : null;
  if (!stat) throw notFound('The file');
  return {
    key,
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
  const key = liveSourceKey(resource);
  const stat = resource.url ? await ctx.storage.stat(key) : null;
  if (!stat) throw noPreview();
  const detected = resource.extras.detected as { mimetype?: string } | null | undefined;
  return {
    key,
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
  const preview = resource.extras.preview as PreviewRecord | null | undefined;
  return { ...(await previewOf(ctx, resource)), encoding: preview?.encoding ?? 'utf-8' };
}
