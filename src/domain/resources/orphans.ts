import type { Resource } from '../../entities/index.ts';
import { contentsKey, fetchedKey, fileKey, previewKey, resourcePrefix, sourceKey, uploadKey } from '../../storage/keys.ts';
import type { PipelineRecord } from '../pipeline/record.ts';
import { servedPreviewKey, type PreviewRecord } from '../pipeline/preview-record.ts';
import { completedUploadOf, liveSourceKey, pendingUploadOf } from './stored-objects.ts';

/** What the sweeper knows of a resource: its row, or null when the row is gone. */
const NO_KEYS: ReadonlySet<string> = new Set();

export type StoredResource = Pick<Resource, 'id' | 'urlType' | 'url' | 'extras'>;

/**
 * Why an object under `resources/<id>/` is an orphan (no record serves it, and none will), or null while
 * it is in use: the file, the preview and the text a record names; the bytes of the pending upload
 * session until its URL has expired; what a running pipeline run is writing; the file and preview of
 * every version retention keeps (`versioned`, src/domain/resources/version-retention.ts). Pure, so the rule is tested
 * on its own; the sweep applies it to a listing.
 */
export function orphanReason(
  key: string,
  resource: StoredResource | null,
  now: Date,
  versioned: ReadonlySet<string> = NO_KEYS,
): string | null {
  if (!resource) return 'its resource no longer exists';
  if (versioned.has(key)) return null;
  const id = resource.id;
  const pending = pendingUploadOf(resource);
  const pipeline = resource.extras.pipeline as PipelineRecord | null | undefined;
  const running = pipeline && (pipeline.status === 'queued' || pipeline.status === 'running') ? pipeline.runId : null;
  const preview = resource.extras.preview as PreviewRecord | null | undefined;

  if (key === sourceKey(id)) return resource.url && liveSourceKey(resource) === key ? null : 'a file the resource no longer serves';
  if (key.startsWith(`${resourcePrefix(id)}files/`)) {
    if (completedUploadOf(resource)?.key === key) return null;
    // Moved by an upload-complete that has not written the record yet.
    if (pending && key === fileKey(id, pending.session)) return null;
    return 'a file replaced by a newer upload';
  }
  if (key.startsWith(`${resourcePrefix(id)}sources/`)) {
    if (liveSourceKey(resource) === key || (running && key === fetchedKey(id, running))) return null;
    return 'a copy of a link replaced by a newer fetch';
  }
  if (key.startsWith(`${resourcePrefix(id)}uploads/`)) {
    if (!pending || key !== uploadKey(id, pending.session)) return 'bytes sent to an upload URL after its upload was completed or replaced';
    if (pending.expiresAt && Date.parse(pending.expiresAt) < now.getTime()) return 'an upload never completed before its URL expired';
    return null;
  }
  if (key === contentsKey(id)) return resource.extras.contents || running ? null : 'file text the resource no longer has';
  if (preview && key === servedPreviewKey(id, preview)) return null;
  if (running && key === previewKey(id, running)) return null;
  return /\/(previews\/[^/]+\.parquet|preview\.parquet)$/.test(key)
    ? 'a preview replaced by a newer run'
    : 'not an object the catalog writes';
}
