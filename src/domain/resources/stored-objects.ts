import type { Resource } from '../../entities/index.ts';
import { sourceKey } from '../../storage/keys.ts';

/**
 * What `resources.extras` says of an upload resource's files: `pendingUpload` is the upload session of
 * the newest upload URL (nothing of it is served), `upload` the completed file that is.
 */
export interface PendingUpload {
  session: string;
  filename?: string;
  contentType?: string;
  /** The size the uploader declared; completion refuses any other. */
  size?: number;
  at: string;
  expiresAt?: string;
}

export interface CompletedUpload {
  /** Absent on files uploaded before upload sessions existed: those live at `sourceKey`. */
  key?: string;
  filename?: string;
  contentType?: string;
  at?: string;
}

/** `resources.extras.fetched`: what the fetch step of the latest run that fetched the link stored. */
export interface FetchedCopy {
  url: string;
  /** Absent on copies fetched before each run had its own key: those live at `sourceKey`. */
  key?: string;
  sha256?: string;
  bytes: number;
  truncated: boolean;
}

type Stored = Pick<Resource, 'id' | 'urlType' | 'extras'>;

export const pendingUploadOf = (resource: Stored) => (resource.extras.pendingUpload as PendingUpload | undefined) ?? null;
export const completedUploadOf = (resource: Stored) => (resource.extras.upload as CompletedUpload | undefined) ?? null;
export const fetchedCopyOf = (resource: Stored) => (resource.extras.fetched as FetchedCopy | undefined) ?? null;

/** Where the resource's current bytes are: its completed upload, or the pipeline's copy of a link. */
export function liveSourceKey(resource: Stored): string {
  if (resource.urlType === 'upload') return completedUploadOf(resource)?.key ?? sourceKey(resource.id);
  return fetchedCopyOf(resource)?.key ?? sourceKey(resource.id);
}
