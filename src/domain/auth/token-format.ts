import { createHash, randomInt } from 'node:crypto';

/**
 * API token secrets: `alm_` + 40 base62 characters + a 6-character base62 CRC32 checksum of those 40.
 * The checksum lets the service (and secret scanners) reject a mistyped or made-up token without a
 * database lookup; the prefix makes a leaked token easy to recognise.
 */
export const TOKEN_PREFIX = 'alm_';
const BODY_LENGTH = 40;
const CHECKSUM_LENGTH = 6;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

function base62(n: number, width: number): string {
  let out = '';
  for (let v = n; v > 0; v = Math.floor(v / 62)) out = BASE62[v % 62] + out;
  return out.padStart(width, '0');
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

export function generateTokenSecret(): string {
  const body = randomBase62(BODY_LENGTH);
  return TOKEN_PREFIX + body + base62(crc32(body), CHECKSUM_LENGTH);
}

/** True when the value has the token shape and its checksum matches. */
export function isWellFormedTokenSecret(value: string): boolean {
  if (value.length !== TOKEN_PREFIX.length + BODY_LENGTH + CHECKSUM_LENGTH) return false;
  if (!value.startsWith(TOKEN_PREFIX)) return false;
  const body = value.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + BODY_LENGTH);
  const checksum = value.slice(TOKEN_PREFIX.length + BODY_LENGTH);
  if (!/^[0-9A-Za-z]+$/.test(body + checksum)) return false;
  return base62(crc32(body), CHECKSUM_LENGTH) === checksum;
}

export const newTokenId = () => `tok_${randomBase62(20)}`;

export const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');
