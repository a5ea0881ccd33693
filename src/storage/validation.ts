/** What both object stores accept as arguments, checked the same way so the two behave alike. */

/** A key or prefix the stores refuse: it could name a file outside the store's folder, or a reserved one. */
export class InvalidObjectKeyError extends Error {
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(`invalid object key ${JSON.stringify(key)}: ${reason}`);
  }
}

/** S3's own limit; the local store keeps it too, so a key that works in development works in production. */
const MAX_KEY_BYTES = 1024;

/**
 * Both stores apply the same rules, so code written against the local store never meets a key S3 would
 * treat differently. Segments starting with a dot are refused because the local store keeps its temporary
 * files and content-type sidecars under such names.
 */
export function assertSafeKey(key: string) {
  if (typeof key !== 'string' || key === '') throw new InvalidObjectKeyError(String(key), 'empty');
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) throw new InvalidObjectKeyError(key, `longer than ${MAX_KEY_BYTES} bytes`);
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f\u007f]/.test(key)) throw new InvalidObjectKeyError(key, 'backslash or control character');
  if (key.startsWith('/')) throw new InvalidObjectKeyError(key, 'absolute');
  for (const segment of key.split('/')) {
    if (segment === '') throw new InvalidObjectKeyError(key, 'empty segment');
    if (segment === '.' || segment === '..') throw new InvalidObjectKeyError(key, `"${segment}" segment`);
    if (segment.startsWith('.')) throw new InvalidObjectKeyError(key, 'segment starting with a dot');
  }
}

/** A prefix is a key, or a key followed by `/`, or empty (everything). */
export function assertSafePrefix(prefix: string) {
  if (prefix === '') return;
  assertSafeKey(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix);
}

/** S3's limit for presigned URLs; the local store keeps it too. */
export const MAX_PRESIGN_SECONDS = 7 * 24 * 60 * 60;

export function assertPresignExpiry(seconds: number) {
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_PRESIGN_SECONDS) {
    throw new RangeError(`expiresInSeconds must be a whole number from 1 to ${MAX_PRESIGN_SECONDS} (got ${seconds})`);
  }
}

export function assertByteRange(range: { start: number; end: number }) {
  if (!Number.isSafeInteger(range.start) || !Number.isSafeInteger(range.end) || range.start < 0 || range.end < range.start) {
    throw new RangeError(`not a byte range: ${range.start}-${range.end}`);
  }
}
