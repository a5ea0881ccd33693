import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The local store's presigned uploads: Almanac signs `PUT <key>` with an expiry and the content type the
 * client promised, and later checks what a client presents. Covering the content type stops a URL issued
 * for a CSV from storing something the catalog would then serve under another type.
 */
export interface PresentedPut {
  key: string;
  /** Unix seconds, as found in the URL's `expires` parameter. */
  expires: string | number;
  /** Hex, as found in the URL's `signature` parameter. */
  signature: string;
  /** The request's Content-Type header. */
  contentType: string;
  now?: Date;
}

export type PutVerdict = { ok: true } | { ok: false; reason: 'expired' | 'bad_signature' };

export function signPut(secret: string, key: string, expires: number, contentType: string): string {
  // Signed keys and header values hold no newline, so no other (key, expires, type) gives the same message.
  return createHmac('sha256', secret).update(`PUT\n${key}\n${expires}\n${contentType}`).digest('hex');
}

/**
 * The signature is checked before the expiry, so `expired` is only ever said of a URL Almanac issued:
 * a forged or altered one is `bad_signature` whatever its date.
 */
export function verifyPut(secret: string, presented: PresentedPut): PutVerdict {
  const expires =
    typeof presented.expires === 'number' ? presented.expires : /^\d{1,12}$/.test(presented.expires) ? Number(presented.expires) : NaN;
  if (!Number.isSafeInteger(expires) || !/^[0-9a-f]{64}$/.test(presented.signature)) return { ok: false, reason: 'bad_signature' };
  const expected = Buffer.from(signPut(secret, presented.key, expires, presented.contentType), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(presented.signature, 'hex'))) return { ok: false, reason: 'bad_signature' };
  const now = presented.now ?? new Date();
  if (now.getTime() >= expires * 1000) return { ok: false, reason: 'expired' };
  return { ok: true };
}
