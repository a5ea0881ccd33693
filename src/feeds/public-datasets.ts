import { anonymous } from '../domain/actor.ts';
import type { DomainContext } from '../domain/context.ts';
import { getDataset } from '../domain/datasets/lifecycle.ts';
import { listDatasets } from '../domain/datasets/list.ts';
import type { presentDataset } from '../domain/datasets/present.ts';
import { notFound } from '../domain/errors.ts';
import { presentResource } from '../domain/resources/present.ts';
import { Resource } from '../entities/index.ts';

/**
 * What the feeds publish: the catalog as an anonymous caller sees it, through the one visibility rule
 * (listDatasets, getDataset). Feeds are public documents that harvesters cache and republish, so a
 * private dataset never appears in them, whoever asks; drafts and deleted datasets neither.
 */
export type ResourceRecord = ReturnType<typeof presentResource>;
export type FeedDataset = Omit<ReturnType<typeof presentDataset>, 'resources'> & { resources: ResourceRecord[] };

export interface FeedPageQuery {
  offset: number;
  limit: number;
  q?: string;
  modifiedSince?: Date;
}

/** One page of the public catalog with each dataset's resources; oldest first without `q`, so pages stay put. */
export async function publicDatasetPage(domain: DomainContext, query: FeedPageQuery) {
  const listed = await listDatasets(domain, anonymous, {
    offset: query.offset,
    limit: query.limit,
    ...(query.q ? { q: query.q } : { sort_by: 'created', sort_order: 'asc' }),
    ...(query.modifiedSince ? { modified_since: query.modifiedSince } : {}),
  });
  const ids = listed.results.map((d) => d.id);
  // The datasets are those the rule let through; their resources come with them, in one query.
  const resources = ids.length ? await domain.em.find(Resource, { dataset: { $in: ids } }, { orderBy: { position: 'asc' } }) : [];
  const byDataset = new Map<string, ResourceRecord[]>();
  for (const r of resources.map(presentResource)) byDataset.set(r.packageId, [...(byDataset.get(r.packageId) ?? []), r]);
  const datasets: FeedDataset[] = listed.results.map(({ match: _match, ...d }: (typeof listed.results)[number] & { match?: unknown }) => ({
    ...d,
    resources: byDataset.get(d.id) ?? [],
  }));
  return { total: listed.count, datasets };
}

/** One public dataset with its resources; a draft, a deleted, a private or an unknown one is 404. */
export async function publicDataset(domain: DomainContext, nameOrId: string): Promise<FeedDataset> {
  const record = await getDataset(domain, anonymous, nameOrId, { draft: false });
  if (record.state !== 'active' || record.private) throw notFound('Dataset');
  return { ...record, resources: record.resources ?? [] };
}

/** Every public dataset, a page at a time (the listing's largest page), for feeds that are one document. */
export async function* everyPublicDataset(domain: DomainContext, pageSize = 100): AsyncGenerator<FeedDataset> {
  for (let offset = 0; ; offset += pageSize) {
    const { datasets, total } = await publicDatasetPage(domain, { offset, limit: pageSize });
    yield* datasets;
    if (datasets.length < pageSize || offset + pageSize >= total) return;
  }
}
