/** Inclusive byte offsets of a satisfiable Range. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * One `Range: bytes=…` header against an object of `size` bytes (RFC 9110 §14): a range, `unsatisfiable`
 * (→ 416), or null to send the whole object (no header, a unit other than bytes, or several ranges,
 * which a server may answer in full).
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (!header) return null;
  const match = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header.trim());
  if (!match) return null;
  const [, first, last] = match;
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (start >= size) return 'unsatisfiable';
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (end < start) return null;
  return { start, end };
}
