import { raw, type Knex, type QueryBuilder } from '@mikro-orm/postgresql';
import { Dataset } from '../../entities/index.ts';
import { draftListingFilter, visibleDatasetsFilter } from '../../policies/datasets.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { unauthenticated, unsupportedFilter } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { likePattern } from '../like-pattern.ts';
import { orgRolesOf } from './access.ts';
import { applyRecordFilters, datasetsWith, datasetsWithFormat } from './list-filters.ts';
import type { DatasetListQuery } from './list-query.ts';
import { metadataFacets } from './metadata-filters.ts';
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

export type DatasetFacets = Awaited<ReturnType<typeof facets>>;

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
    // getCount turns the builder it is called on into a count query: count on a copy.
    const [found, count] = await Promise.all([paged.getResultList(), search?.total ?? filtered.clone().getCount('d.id', true)]);
    ids = found.map((d) => d.id);
    total = count;
  }
  return {
    ids,
    total,
    ...(search ? { search: { semantic: search.semantic, explain: search.explain } } : {}),
    ...(query.include_facets ? { facets: await facets(ctx, filtered, query.facet_limit ?? FACET_LIMIT) } : {}),
  };
}

/** Counts per organization, category, tag, format, license and record value over the whole filtered set, not the page. */
async function facets(ctx: DomainContext, filtered: QueryBuilder<Dataset>, limit: number) {
  const knex = ctx.em.getKnex();
  const ids = () => filtered.clone().select('d.id').getKnexQuery();
  const top = (q: Knex.QueryBuilder) =>
    q
      .orderBy([
        { column: 'count', order: 'desc' },
        { column: 'name', order: 'asc' },
      ])
      .limit(limit);
  /** Datasets per row of `named`, reached from `from` (whose `datasetId` column names the dataset) through `link`. */
  const perNamed = (from: string, datasetId: string, named: string, link: [string, string], columns: string[]) =>
    top(
      knex(from)
        .join(named, ...link)
        .whereIn(datasetId, ids())
        .select(...columns)
        .count('* as count')
        .groupBy(...columns),
    );
  const [organization, groups, tags, resFormat, licenseId, record] = await Promise.all([
    perNamed('datasets as d', 'd.id', 'groups as g', ['g.id', 'd.owner_org_id'], ['g.name', 'g.title']),
    perNamed('dataset_groups as dg', 'dg.dataset_id', 'groups as g', ['g.id', 'dg.group_id'], ['g.name', 'g.title']),
    perNamed('dataset_tags as dt', 'dt.dataset_id', 'tags as t', ['t.id', 'dt.tag_id'], ['t.name']),
    top(
      knex('resources as r')
        .whereIn('r.dataset_id', ids())
        .whereNotNull('r.format')
        .select('r.format as name')
        .countDistinct('r.dataset_id as count')
        .groupBy('r.format'),
    ),
    top(
      knex('datasets as d')
        .whereIn('d.id', ids())
        .whereNotNull('d.license_id')
        .select('d.license_id as name')
        .count('* as count')
        .groupBy('d.license_id'),
    ),
    metadataFacets(knex, ids, limit),
  ]);
  const counted = (rows: Array<Record<string, unknown>>) =>
    rows.map((r) => ({ name: String(r.name), ...(typeof r.title === 'string' ? { title: r.title } : {}), count: Number(r.count) }));
  return {
    organization: counted(organization),
    groups: counted(groups),
    tags: counted(tags),
    res_format: counted(resFormat),
    license_id: counted(licenseId),
    ...record,
  };
}
