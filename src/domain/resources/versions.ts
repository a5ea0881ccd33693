import { presentTableSchema } from './files.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { page, type PageRequest } from '../pagination.ts';
import { servedPreviewKey, type PreviewRecord } from '../pipeline/preview-record.ts';
import { diffSchemas } from '../pipeline/schema-diff.ts';
import { loadReadableResource } from './access-query.ts';
import type { StoredObject } from './files.ts';
import type { ResourceFields } from './present.ts';
import { completedUploadOf, liveSourceKey } from './stored-objects.ts';
import { retainedVersions, type StoredVersion } from './version-store.ts';

/**
 * GET /resources/{id}/versions and what each version serves (issue 30 §2), read under the resource's
 * visibility like its current data: a caller who may not read the resource gets the same 404.
 */

type Readable = Pick<ResourceFields, 'id' | 'url' | 'urlType' | 'hash' | 'size' | 'extras' | 'name'>;

/**
 * The versions retention keeps, newest first. A resource whose preview was made before versions existed
 * and that has not been versioned since has one version, 1: its record as it stands (it is stored as
 * such the first time the resource is versioned, src/domain/pipeline/version-record.ts).
 */
export async function readableVersions(ctx: DomainContext, resource: Readable): Promise<StoredVersion[]> {
  const stored = await retainedVersions(ctx.em, resource.id, ctx.config.versions.retention);
  if (stored.length) return stored;
  const preview = resource.extras.preview as PreviewRecord | null | undefined;
  if (!preview?.schema || !resource.url || resource.extras.queryable !== true) return [];
  const fetched = resource.extras.fetched as { sha256?: string; bytes?: number } | undefined;
  return [
    {
      resourceId: resource.id,
      n: 1,
      sourceKey: liveSourceKey(resource),
      sourceUrl: resource.urlType === 'link' ? resource.url : null,
      previewKey: servedPreviewKey(resource.id, preview),
      schema: preview.schema,
      sha256: resource.urlType === 'upload' ? (resource.hash ?? null) : (fetched?.sha256 ?? null),
      size: resource.urlType === 'upload' ? (resource.size ?? null) : (fetched?.bytes ?? null),
      rowCount: preview.schema.rowCount,
      createdAt: new Date(preview.createdAt ?? 0),
      activityId: null,
      schemaDiff: null,
      review: null,
      reviewedBy: null,
      reviewedAt: null,
    },
  ];
}

export function presentVersion(version: StoredVersion, current: boolean) {
  return {
    resourceId: version.resourceId,
    version: version.n,
    current,
    sourceUrl: version.sourceUrl,
    sha256: version.sha256,
    size: version.size,
    rowCount: version.rowCount,
    columns: version.schema.columns.length,
    previewTruncated: version.schema.previewTruncated,
    activityId: version.activityId,
    schemaChanges: version.schemaDiff,
    review: version.review,
    reviewedBy: version.reviewedBy,
    reviewedAt: version.reviewedAt?.toISOString() ?? null,
    createdAt: version.createdAt.toISOString(),
  };
}

/** The version the resource serves now: the one whose preview is the served one. */
export const isCurrent = (resource: Pick<Readable, 'id' | 'extras'>, version: Pick<StoredVersion, 'previewKey'>) => {
  const preview = resource.extras.preview as PreviewRecord | null | undefined;
  return !!preview && resource.extras.queryable === true && servedPreviewKey(resource.id, preview) === version.previewKey;
};

export async function listVersions(ctx: DomainContext, actor: Actor, id: string, req: PageRequest) {
  const { resource } = await loadReadableResource(ctx, actor, id);
  const versions = await readableVersions(ctx, resource);
  const results = versions.slice(req.offset, req.offset + req.limit).map((v) => presentVersion(v, isCurrent(resource, v)));
  return page(results, versions.length, req);
}

/** One version of a resource the actor may read; 404 for a version retention let go or never made. */
export async function loadReadableVersion(ctx: DomainContext, actor: Actor, id: string, n: number) {
  const { resource } = await loadReadableResource(ctx, actor, id);
  const version = (await readableVersions(ctx, resource)).find((v) => v.n === n);
  if (!version) throw notFound('Version');
  return { resource, version };
}

/** GET …/versions/{n}/schema: as GET /resources/{id}/schema has it, for that version. */
export async function versionSchema(ctx: DomainContext, actor: Actor, id: string, n: number) {
  const { resource, version } = await loadReadableVersion(ctx, actor, id, n);
  return { id: resource.id, version: version.n, queryable: true, schema: presentTableSchema(version.schema) };
}

const versionFilename = (resource: Readable, version: StoredVersion) => {
  const upload = completedUploadOf(resource);
  if (upload?.filename && upload.key === version.sourceKey) return upload.filename;
  return `${resource.name || resource.id}-v${version.n}`;
};

/**
 * GET …/versions/{n}/download: the bytes the version was made from. For an upload, its file; for a
 * link, the copy the pipeline fetched (the link itself may answer other bytes by now), which is capped
 * at PREVIEW_MAX_BYTES and a little over.
 */
export async function openVersionDownload(ctx: DomainContext, actor: Actor, id: string, n: number): Promise<StoredObject> {
  const { resource, version } = await loadReadableVersion(ctx, actor, id, n);
  const stat = await ctx.storage.stat(version.sourceKey);
  if (!stat) throw notFound('The file');
  return {
    key: version.sourceKey,
    size: stat.size,
    contentType: stat.contentType || 'application/octet-stream',
    filename: versionFilename(resource, version),
  };
}

/** GET …/versions/{n}/preview: the first PREVIEW_MAX_BYTES of those bytes, as GET /resources/{id}/preview serves the current ones. */
export async function openVersionPreview(ctx: DomainContext, actor: Actor, id: string, n: number): Promise<StoredObject> {
  const target = await openVersionDownload(ctx, actor, id, n);
  return { ...target, size: Math.min(target.size, ctx.config.pipeline.previewMaxBytes) };
}

/**
 * GET …/versions/{n}/schema-changes?from=m: what a script written against version m meets in version n, in
 * the terms of each version's own `schemaChanges` (which compare a version with the one served before it).
 */
export async function compareVersions(ctx: DomainContext, actor: Actor, id: string, n: number, from: number) {
  const { resource } = await loadReadableResource(ctx, actor, id);
  const versions = await readableVersions(ctx, resource);
  const [before, after] = [from, n].map((k) => versions.find((v) => v.n === k));
  if (!before || !after) throw notFound('Version');
  return { resourceId: resource.id, from, version: n, ...diffSchemas(before.schema, after.schema) };
}
