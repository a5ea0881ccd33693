import { raw } from '@mikro-orm/postgresql';
import { Dataset } from '../../entities/index.ts';
import { draftListingFilter, visibleDatasetsFilter } from '../../policies/datasets.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { unauthenticated, unsupportedFilter } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { likePattern } from '../like-pattern.ts';
import { orgRolesOf } from './access.ts';
import { countedFacets, countedTotal, visibleScopes } from './facet-counts.ts';
import { datasetFacets, type DatasetFacets } from './facets.ts';
import { applyRecordFilters, countDatasets, datasetsWith, datasetsWithFormat } from './list-filters.ts';
import { narrowsListing, type DatasetListQuery } from './list-query.ts';
import { searchDatasets, type SearchOutcome } from './search.ts';

/** Filters the draft listing refuses (spec §4, draft listing rule 3). */
const NOT_ON_DRAFTS = ['tags', 'groups', 'res_format', 'license_id', 'creator_user_id', 'my_org', 'include_facets'] as const;

const SORT_COLUMNS = { updated: 'd.updated_at', created: 'd.created_at', name: 'd.name', title: 'd.title', id: 'd.id' } as const;

/** Rows per facet when the query does not say. */
const FACET_LIMIT = 50;

/** One page of the listing as dataset ids, in order; each entry point loads what it presents from them. */
export interface DatasetIdPage {
  ids: string[];
  /** Datasets in the whole result, not the page. */
  total: number;
  /** With `q`: the search's semantic status, and why each dataset of the page matched. */
  search?: Pick<SearchOutcome, 'semantic' | 'explain'>;
  facets?: DatasetFacets;
}

/**
 * The listing of GET /packages, the CKAN API, the feeds, MCP and the web pages, down to ids. Who sees
 * what is decided by the policy's filter inside the query, so counts, pages and facets all agree and
 * nothing is dropped from a page afterwards. With `q` the order is relevance: keyword and semantic
 * retrieval fused (search.ts); ties break on id, so pages are stable.
 */
export async function findDatasetIds(ctx: DomainContext, actor: Actor, query: DatasetListQuery): Promise<DatasetIdPage> {
  const state = query.state ?? 'active';
  if (state !== 'active' && actor.userId === null) throw unauthenticated('Listing drafts or deleted datasets needs a login.');
  if (state === 'draft') {
    const refused = NOT_ON_DRAFTS.filter((key) => query[key] !== undefined);
    if (refused.length) {
      throw unsupportedFilter(
        `The draft listing does not accept ${refused.join(', ')}.`,
        refused.map((path) => ({ path, message: 'is not supported on the draft listing' })),
      );
    }
  }

  const roles = await orgRolesOf(ctx, actor);
  const qb = ctx.em.createQueryBuilder(Dataset, 'd');
  qb.where(state === 'draft' ? draftListingFilter(actor, roles) : { $and: [visibleDatasetsFilter(actor, roles), { state }] });
  if (!query.private) qb.andWhere({ private: false });
  if (query.organization) {
    const ids = query.organization.filter(isUuid);
    qb.andWhere({ $or: [{ ownerOrg: { name: { $in: query.organization } } }, ...(ids.length ? [{ ownerOrg: { $in: ids } }] : [])] });
  }
  if (query.license_id) qb.andWhere({ licenseId: { $in: query.license_id } });
  if (query.creator_user_id) qb.andWhere({ creator: query.creator_user_id });
  if (query.my_org) qb.andWhere({ ownerOrg: { $in: [...roles.keys()] } });
  if (query.name) qb.andWhere({ name: { $ilike: likePattern(query.name) } });
  if (query.tags) qb.andWhere({ id: { $in: datasetsWith(ctx, 'tags', query.tags) } });
  if (query.groups) qb.andWhere({ id: { $in: datasetsWith(ctx, 'groups', query.groups) } });
  if (query.res_format) qb.andWhere({ id: { $in: datasetsWithFormat(ctx, query.res_format) } });
  applyRecordFilters(ctx, qb, query);

  const q = query.q?.trim();
  const search = q ? await searchDatasets(ctx, actor, roles, query, q, qb) : undefined;
  const filtered = search?.matched ?? qb;
  const sortBy = query.sort_by ?? (q ? undefined : 'updated');
  const direction = query.sort_order ?? (sortBy === 'name' || sortBy === 'title' ? 'asc' : 'desc');

  // Only visibility narrows the active listing: its total and facets are the counts kept as datasets change.
  const scopes = state === 'active' && !narrowsListing(query) ? await visibleScopes(ctx, actor, roles, query.private === true) : undefined;
  let ids: string[];
  let total: number;
  if (search?.pageIds) {
    // Relevance: the fused order of the page's ids.
    ids = search.pageIds;
    total = search.total;
  } else {
    const paged = filtered
      .clone()
      .select('d.id')
      .orderBy(sortBy === 'id' ? { id: direction } : { [raw(SORT_COLUMNS[sortBy!])]: direction, id: 'asc' })
      .offset(query.offset)
      .limit(query.limit);
    const [found, count] = await Promise.all([
      paged.getResultList(),
      search?.total ?? (scopes ? countedTotal(ctx, scopes) : countDatasets(filtered)),
    ]);
    ids = found.map((d) => d.id);
    total = count;
  }
  const limit = query.facet_limit ?? FACET_LIMIT;
  return {
    ids,
    total,
    ...(search ? { search: { semantic: search.semantic, explain: search.explain } } : {}),
    ...(query.include_facets
      ? {
          facets: scopes ? await countedFacets(ctx, scopes, limit) : await datasetFacets(ctx, filtered, state, limit),
        }
      : {}),
  };
}
