/**
 * How long a resource's earlier data versions are kept, a site setting (VERSION_RETENTION): all of
 * them, the newest N, or those made in the last N days. Two are always kept, whatever their age: the one
 * the resource serves (or, while new bytes are being processed, the last it served), and one waiting for
 * its editor's review (the schema-change hold).
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

export type VersionReview = 'pending' | 'accepted' | 'declined' | 'superseded';

interface Dated {
  n: number;
  createdAt: Date;
  /** Null for a version that was never held. */
  review?: VersionReview | null;
}

/** Whether the version is in the line the resource served: never held, or held and accepted. */
export const wasServed = (v: Pick<Dated, 'review'>) => v.review == null || v.review === 'accepted';

/** The version the resource serves (or served last, while new bytes are processed): the newest of that line. */
export const servedVersionOf = <T extends Pick<Dated, 'n' | 'review'>>(versions: readonly T[]): T | undefined =>
  [...versions].sort((a, b) => b.n - a.n).find(wasServed);

/** The numbers, of one resource's versions, that retention lets go. */
export function expiredVersions(versions: readonly Dated[], policy: VersionRetention, now: Date): number[] {
  if (policy.keep === 'all') return [];
  const served = servedVersionOf(versions);
  const newestFirst = [...versions].sort((a, b) => b.n - a.n);
  const kept = (v: Dated, rank: number) =>
    v === served ||
    v.review === 'pending' ||
    (policy.keep === 'last' ? rank < policy.count : v.createdAt.getTime() >= now.getTime() - policy.days * DAY_MS);
  return newestFirst.filter((v, rank) => !kept(v, rank)).map((v) => v.n);
}
