import { anonymous } from '../domain/actor.ts';
import { searchCatalog, showCatalogDataset, type CatalogDataset } from '../domain/catalog/datasets.ts';
import type { DomainContext } from '../domain/context.ts';
import { presentDataset } from '../domain/datasets/present.ts';
import { notFound } from '../domain/errors.ts';
import { presentResource } from '../domain/resources/present.ts';
import { publishedVersions, NO_VERSIONS, type PublishedVersions } from '../domain/resources/published-versions.ts';

/**
 * What the feeds publish: the catalog as an anonymous caller sees it, through the one visibility rule
 * (src/domain/catalog's active-only reads, over findDatasetIds and loadVisibleDataset). Feeds are public
 * documents that harvesters cache and republish, so a private dataset never appears in them, whoever
 * asks; drafts and deleted datasets neither.
 */
export type ResourceRecord = ReturnType<typeof presentResource> & { versions: PublishedVersions };
export type FeedDataset = Omit<ReturnType<typeof presentDataset>, 'resources'> & { resources: ResourceRecord[] };

export interface FeedPageQuery {
  offset: number;
  limit: number;
  q?: string;
  modifiedSince?: Date;
}

/** The records as the feeds describe them, with their resources' data versions read in one query for them all. */
async function present(domain: DomainContext, records: CatalogDataset[]): Promise<FeedDataset[]> {
  const versions = await publishedVersions(
    domain,
    records.flatMap((r) => r.resources),
  );
  return records.map(({ dataset, resources }) => ({
    ...presentDataset(dataset),
    resources: resources.map((r) => ({ ...presentResource(r), versions: versions.get(r.id) ?? NO_VERSIONS })),
  }));
}

/** One page of the public catalog with each dataset's resources; oldest first without `q`, so pages stay put. */
export async function publicDatasetPage(domain: DomainContext, query: FeedPageQuery) {
  const found = await searchCatalog(domain, anonymous, {
    offset: query.offset,
    limit: query.limit,
    ...(query.q ? { q: query.q } : { sort_by: 'created', sort_order: 'asc' }),
    ...(query.modifiedSince ? { modified_since: query.modifiedSince } : {}),
  });
  return { total: found.count, datasets: await present(domain, found.datasets) };
}

/** One public dataset with its resources; a draft, a deleted, a private or an unknown one is 404. */
export async function publicDataset(domain: DomainContext, nameOrId: string): Promise<FeedDataset> {
  const record = await showCatalogDataset(domain, anonymous, nameOrId);
  // Anonymous callers never see a private dataset; a feed is public whoever fetches it, so say it here too.
  if (record.dataset.private) throw notFound('Dataset');
  return (await present(domain, [record]))[0]!;
}

/** Every public dataset, a page at a time (the listing's largest page), for feeds that are one document. */
export async function* everyPublicDataset(domain: DomainContext, pageSize = 100): AsyncGenerator<FeedDataset> {
  for (let offset = 0; ; offset += pageSize) {
    const { datasets, total } = await publicDatasetPage(domain, { offset, limit: pageSize });
    yield* datasets;
    if (datasets.length < pageSize || offset + pageSize >= total) return;
  }
}
