/**
 * Reading loosely typed source documents (JSON of unknown shape): each helper takes `unknown` and gives a
 * clean value or null, never throws, so that a record with odd fields still maps.
 */

/** A non-empty trimmed string (numbers are written out), else null. */
export function text(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed ? trimmed : null;
}

/** An email address without its `mailto:` scheme (and any `?subject=`), else null. */
export function email(value: unknown): string | null {
  const raw = text(value);
  if (!raw) return null;
  const address = raw
    .replace(/^mailto:/i, '')
    .split('?')[0]!
    .trim();
  try {
    return decodeURIComponent(address) || null;
  } catch {
    return address || null;
  }
}

/** An absolute http(s) URL, else null. */
export function httpUrl(value: unknown): string | null {
  const raw = text(value);
  if (!raw || !URL.canParse(raw)) return null;
  const protocol = new URL(raw).protocol;
  return protocol === 'http:' || protocol === 'https:' ? raw : null;
}

/** A whole number of bytes, from a number or a numeric string, else null. */
export function byteCount(value: unknown): number | null {
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/**
 * A date or date-time as ISO 8601 in UTC (`2024-05-01T10:00:00.000Z`), else null. Date-times without a
 * zone are UTC (CKAN writes naive UTC); DCAT-US also allows intervals and durations (`R/P1D`), which say
 * no date and give null.
 */
export function isoInstant(value: unknown): string | null {
  const raw = text(value);
  if (!raw || !/^\d{4}-\d\d(-\d\d)?([T ]\d\d:\d\d(:\d\d(\.\d+)?)?)?(Z|[+-]\d\d:?\d\d)?$/i.test(raw)) return null;
  const zoned = /T|\s/.test(raw) && !/(Z|[+-]\d\d:?\d\d)$/i.test(raw) ? `${raw.replace(' ', 'T')}Z` : raw;
  const date = new Date(zoned);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** An array as is, one value as an array of it, nothing as an empty array. */
export const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]);

/** A plain object, else null. */
export const object = (value: unknown): Record<string, unknown> | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
