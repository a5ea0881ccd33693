/**
 * Object keys, derived from ids only, so a retried write replaces its own object instead of adding another.
 * Everything of one resource shares a prefix, so deleting a resource is one prefix removal, and the
 * orphan sweeper can tell from a key alone which record it belongs to.
 */
export const resourcePrefix = (resourceId: string) => `resources/${resourceId}/`;
/**
 * A link's bytes as the pipeline fetched them (capped) before each run had its own key (`fetchedKey`).
 * Uploads completed before upload sessions existed also live here.
 */
export const sourceKey = (resourceId: string) => `${resourcePrefix(resourceId)}source`;
/**
 * Where the bytes PUT to one upload URL land. Nothing reads them until upload-complete has verified them
 * and moved them to `fileKey`, so an abandoned or half-finished upload never replaces a good file, and a
 * URL still alive after completion writes only here, never over the file.
 */
export const uploadKey = (resourceId: string, session: string) => `${resourcePrefix(resourceId)}uploads/${session}`;
/**
 * A link's bytes as one pipeline run fetched them: each run its own key, so an older version of the
 * resource keeps the bytes it was made from while the next run fetches the link again.
 */
export const fetchedKey = (resourceId: string, runId: string) => `${resourcePrefix(resourceId)}sources/${runId}`;
/** An uploaded file, one key per upload session; the resource's record names the one it serves. */
export const fileKey = (resourceId: string, session: string) => `${resourcePrefix(resourceId)}files/${session}`;
/** The typed Parquet preview one pipeline run made; the resource's record names the one being served. */
export const previewKey = (resourceId: string, runId: string) => `${resourcePrefix(resourceId)}previews/${runId}.parquet`;
/** Plain text extracted from the head of the file, for the contents search index. */
export const contentsKey = (resourceId: string) => `${resourcePrefix(resourceId)}contents.txt`;

/** The resource a key belongs to, or null for a key outside the resources' prefixes. */
export function resourceIdOfKey(key: string): string | null {
  const match = /^resources\/([^/]+)\//.exec(key);
  return match ? match[1]! : null;
}
