import type { DomainContext } from '../context.ts';
import type { ResourceFields } from './present.ts';
import { wasServed } from './version-retention.ts';
import { retainedVersionSummaries, type VersionSummary } from './version-store.ts';
import { isCurrent } from './versions.ts';

/**
 * The data versions a resource has published (issue 30 §2), as the public feeds describe them: the one it
 * serves now, and the earlier ones it served that retention keeps. A version held for its editor
 * (pending), declined or superseded was never the published line, and is left out; so is everything
 * while new bytes are being processed, but for the earlier versions (none is served as current then).
 */
export interface PublishedVersions {
  current: VersionSummary | null;
  /** Newest first. */
  earlier: VersionSummary[];
}

export const NO_VERSIONS: PublishedVersions = { current: null, earlier: [] };

/** Each resource's published versions, read in one query for all of them (a feed page's resources). */
export async function publishedVersions(
  ctx: Pick<DomainContext, 'em' | 'config'>,
  resources: Array<Pick<ResourceFields, 'id' | 'extras'>>,
): Promise<Map<string, PublishedVersions>> {
  const retained = await retainedVersionSummaries(
    ctx.em,
    resources.map((r) => r.id),
    ctx.config.versions.retention,
  );
  const published = new Map<string, PublishedVersions>();
  for (const resource of resources) {
    const served = (retained.get(resource.id) ?? []).filter(wasServed);
    const current = served.find((v) => isCurrent(resource, v)) ?? null;
    published.set(resource.id, { current, earlier: served.filter((v) => v !== current) });
  }
  return published;
}
