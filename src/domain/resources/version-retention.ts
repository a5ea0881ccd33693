/**
 * How long a resource's earlier data versions are kept, a site setting (VERSION_RETENTION): all of
 * them, the newest N, or those made in the last N days. The newest version is always kept: it is the
 * one the resource serves (or, while new bytes are being processed, the last it served).
 */
export type VersionRetention = { keep: 'all' } | { keep: 'last'; count: number } | { keep: 'days'; days: number };

const DAY_MS = 86_400_000;

/** `all`, `last:<N>` or `days:<N>` (N ≥ 1); null for anything else. */
export function parseVersionRetention(text: string): VersionRetention | null {
  if (text === 'all') return { keep: 'all' };
  const match = /^(last|days):([1-9]\d{0,5})$/.exec(text);
  if (!match) return null;
  const n = Number(match[2]);
  return match[1] === 'last' ? { keep: 'last', count: n } : { keep: 'days', days: n };
}

/** The numbers, of one resource's versions, that retention lets go. */
export function expiredVersions(versions: ReadonlyArray<{ n: number; createdAt: Date }>, policy: VersionRetention, now: Date): number[] {
  if (policy.keep === 'all') return [];
  const newestFirst = [...versions].sort((a, b) => b.n - a.n);
  const kept = (v: { createdAt: Date }, rank: number) =>
    rank === 0 || (policy.keep === 'last' ? rank < policy.count : v.createdAt.getTime() >= now.getTime() - policy.days * DAY_MS);
  return newestFirst.filter((v, rank) => !kept(v, rank)).map((v) => v.n);
}
