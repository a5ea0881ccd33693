/**
 * Object keys, derived from ids only, so a retried upload or pipeline step overwrites its own object.
 * Everything of one resource shares a prefix, so deleting a resource is one prefix removal.
 */
export const resourcePrefix = (resourceId: string) => `resources/${resourceId}/`;
/** The uploaded bytes, or for a link the pipeline's capped copy of the remote file. */
export const sourceKey = (resourceId: string) => `${resourcePrefix(resourceId)}source`;
/** The typed Parquet preview of a CSV/TSV resource. */
export const previewKey = (resourceId: string) => `${resourcePrefix(resourceId)}preview.parquet`;
/** Plain text extracted from the head of the file, for the contents search index. */
export const contentsKey = (resourceId: string) => `${resourcePrefix(resourceId)}contents.txt`;
