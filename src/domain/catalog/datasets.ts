import { Dataset, Resource, type Group } from '../../entities/index.ts';
import { visibleDatasetsFilter } from '../../policies/datasets.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { loadDatasetIfVisible, orgRolesOf } from '../datasets/access.ts';
import { findDatasetIds } from '../datasets/list-ids.ts';
import type { DatasetListQuery } from '../datasets/list-query.ts';
import { getGroup } from '../groups/groups.ts';
import type { PageRequest } from '../pagination.ts';

/**
 * The published catalog as other catalogs' protocols read it (the CKAN-compatible API, the feeds):
 * active datasets only, never a draft nor a deleted one, whoever asks; private ones only for callers the
 * visibility rule lets see them, and only when the listing asks for private datasets. The listing and
 * its filters are GET /packages's (findDatasetIds); this loads the whole records (resources, organization).
 */

/** A dataset with everything a full record needs, loaded: organization, tags, categories, resources. */
export interface CatalogDataset {
  dataset: Dataset;
  organization: Group | null;
  resources: Resource[];
}

async function withResources(ctx: DomainContext, datasets: Dataset[]): Promise<CatalogDataset[]> {
  if (datasets.length === 0) return [];
  await ctx.em.populate(datasets, ['ownerOrg', 'tags', 'groups']);
  const resources = await ctx.em.find(Resource, { dataset: { $in: datasets.map((d) => d.id) } }, { orderBy: { position: 'asc' } });
  const byDataset = new Map<string, Resource[]>();
  for (const r of resources) {
    const id = (r.dataset as { id: string }).id;
    byDataset.set(id, [...(byDataset.get(id) ?? []), r]);
  }
  return datasets.map((dataset) => ({
    dataset,
    organization: (dataset.ownerOrg as Group | null | undefined) ?? null,
    resources: byDataset.get(dataset.id) ?? [],
  }));
}

/** A search of active datasets (the listing's filters, order and facets), each with its whole record. */
export async function searchCatalog(ctx: DomainContext, actor: Actor, query: DatasetListQuery) {
  const found = await findDatasetIds(ctx, actor, { ...query, state: 'active' });
  const loaded = found.ids.length ? await ctx.em.find(Dataset, { id: { $in: found.ids } }) : [];
  const byId = new Map(loaded.map((d) => [d.id, d]));
  const datasets = await withResources(
    ctx,
    found.ids.flatMap((id) => byId.get(id) ?? []),
  );
  return { count: found.total, datasets, facets: found.facets };
}

/** One active dataset the actor may see, with its whole record; a draft, a deleted or an unseen one is 404. */
export async function showCatalogDataset(ctx: DomainContext, actor: Actor, nameOrId: string): Promise<CatalogDataset> {
  const dataset = await loadDatasetIfVisible(ctx, actor, nameOrId, ['active']);
  const [record] = await withResources(ctx, [dataset]);
  return record;
}

/** Names of the public active datasets, by name (CKAN's package_list lists no private dataset, whoever asks). */
export async function catalogDatasetNames(ctx: DomainContext, actor: Actor, req: PageRequest): Promise<string[]> {
  const roles = await orgRolesOf(ctx, actor);
  const rows = await ctx.em
    .createQueryBuilder(Dataset, 'd')
    .select(['d.id', 'd.name'])
    .where({ $and: [visibleDatasetsFilter(actor, roles), { state: 'active', private: false }] })
    .orderBy({ name: 'asc' })
    .offset(req.offset)
    .limit(req.limit)
    .getResultList();
  return rows.map((d) => d.name);
}

/**
 * An organization or category with its package count for this actor and, when asked, the first `limit`
 * of its active datasets the actor may see (private ones of its own organizations included).
 */
export async function showCatalogGroup(
  ctx: DomainContext,
  actor: Actor,
  kind: 'organization' | 'category',
  nameOrId: string,
  datasets: { limit: number } | null,
) {
  const group = await getGroup(ctx, actor, kind, nameOrId);
  if (!datasets || datasets.limit === 0) return { group, datasets: [] as CatalogDataset[] };
  const filter = kind === 'organization' ? { organization: [group.id] } : { groups: [group.id] };
  const found = await searchCatalog(ctx, actor, { ...filter, private: true, offset: 0, limit: datasets.limit, sort_by: 'name' });
  return { group, datasets: found.datasets };
}
