import type { Readable } from 'node:stream';

/** A signed request a client makes straight to the store (an upload that bypasses the API). */
export interface PresignedRequest {
  url: string;
  method: 'PUT';
  /** Headers the client must send with the request, exactly. */
  headers: Record<string, string>;
  expiresAt: Date;
}

export interface ObjectStat {
  size: number;
  contentType: string | null;
}

/** One object as a listing shows it. */
export interface ListedObject {
  key: string;
  size: number;
  lastModified: Date;
}

/** Inclusive byte offsets, as in HTTP Range. */
export interface ByteRange {
  start: number;
  end: number;
}

/** Thrown by `read` when the key holds nothing. */
export class ObjectNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`no object at ${key}`);
  }
}

/** The store could not be reached (down, or the network to it): the service's outage, not a bug; a retry may work. */
export class StorageUnavailableError extends Error {
  constructor(cause: unknown) {
    super('the object store cannot be reached', { cause });
  }
}

/**
 * Where uploaded files and previews live: MinIO/S3, or the local filesystem. Keys are derived from ids
 * (src/storage/keys.ts), so a retried write replaces the object instead of adding another.
 */
export interface ObjectStore {
  readonly kind: 'local' | 's3';
  ensureReady(): Promise<void>;
  isHealthy(): Promise<boolean>;
  /**
   * Streams `body` to `key`, replacing any object there. Readers see the old object or the whole new
   * one, never a part. If `body` errors, the write is abandoned and nothing is left behind.
   */
  put(key: string, body: Readable, meta?: { contentType?: string }): Promise<{ size: number }>;
  /** Size and content type, or null when there is no object. */
  stat(key: string): Promise<ObjectStat | null>;
  /** The bytes, or a range of them; ObjectNotFoundError when there is no object. */
  read(key: string, range?: ByteRange): Promise<Readable>;
  /**
   * Makes the object at `from` (bytes and content type) the object at `to`, which readers see whole or
   * not at all, then removes `from`. ObjectNotFoundError when `from` holds nothing.
   */
  move(from: string, to: string): Promise<void>;
  /** Removes the object; nothing there is fine. */
  remove(key: string): Promise<void>;
  /** Every object whose key starts with `prefix`, in no promised order; objects written meanwhile may or may not show. */
  list(prefix: string): AsyncIterable<ListedObject>;
  /** Removes every object whose key starts with `prefix`. */
  removePrefix(prefix: string): Promise<void>;
  /** A PUT the client can make without credentials until `expiresInSeconds` from now. */
  presignPut(key: string, options: { contentType: string; expiresInSeconds: number }): Promise<PresignedRequest>;
}
