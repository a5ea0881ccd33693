import type { QueryBuilder } from '@mikro-orm/postgresql';
import { Dataset, Resource } from '../../entities/index.ts';
import type { DomainContext } from '../context.ts';
import { isUuid } from '../ids.ts';
import type { DatasetListQuery, TimeBound } from './list-query.ts';
import { applyMetadataFilters, hasMetadataFilters } from './metadata-filters.ts';

/**
 * The listing's filters on a dataset's own record and links that the vector index has no payload for
 * (time ranges, exact names or ids, exclusions, the metadata record and its coverage). The listing applies them in SQL; the semantic side
 * (search.ts) turns the same predicate into the list of dataset ids it may return, so both agree.
 */

const TIME_COLUMNS = { updated: 'updatedAt', created: 'createdAt' } as const;
const OPERATORS = { gte: '$gte', gt: '$gt', lte: '$lte', lt: '$lt' } as const;

/** Every time bound of the query, `modified_since`/`modified_before` included. */
export function timeBounds(query: DatasetListQuery): TimeBound[] {
  return [
    ...(query.modified_since ? [{ field: 'updated' as const, op: 'gte' as const, at: query.modified_since }] : []),
    ...(query.modified_before ? [{ field: 'updated' as const, op: 'lt' as const, at: query.modified_before }] : []),
    ...(query.time_bounds ?? []),
  ];
}

/** True when the query has a filter that only SQL can apply (see applyRecordFilters). */
export function hasRecordFilters(query: DatasetListQuery): boolean {
  const exclude = query.exclude ?? {};
  return (
    timeBounds(query).length > 0 ||
    query.names !== undefined ||
    query.ids !== undefined ||
    Object.values(exclude).some((list) => list !== undefined) ||
    hasMetadataFilters(query)
  );
}

/** Ids of datasets linked to any tag or category named (or, for categories, identified) in `refs`. */
export function datasetsWith(ctx: DomainContext, relation: 'tags' | 'groups', refs: string[]) {
  const ids = refs.filter(isUuid);
  const match =
    relation === 'tags'
      ? { 'x.name': { $in: refs } }
      : { $or: [{ 'x.name': { $in: refs } }, ...(ids.length ? [{ 'x.id': { $in: ids } }] : [])] };
  return ctx.em.createQueryBuilder(Dataset, 'dx').select('dx.id').join(`dx.${relation}`, 'x').where(match).getKnexQuery();
}

/** Ids of datasets owned by any organization named or identified in `refs`. */
function datasetsOwnedBy(ctx: DomainContext, refs: string[]) {
  const ids = refs.filter(isUuid);
  return ctx.em
    .createQueryBuilder(Dataset, 'dx')
    .select('dx.id')
    .join('dx.ownerOrg', 'o')
    .where({ $or: [{ 'o.name': { $in: refs } }, ...(ids.length ? [{ 'o.id': { $in: ids } }] : [])] })
    .getKnexQuery();
}

/** Ids of datasets with a resource in any of `formats` (compared upper case). */
export function datasetsWithFormat(ctx: DomainContext, formats: string[]) {
  return ctx.em
    .createQueryBuilder(Resource, 'r')
    .select('r.dataset_id')
    .where({ format: { $in: formats.map((f) => f.trim().toUpperCase()) } })
    .getKnexQuery();
}

/** Narrows `qb` (over `datasets d`) by the query's time bounds, exact names and ids, exclusions, record and coverage. */
export function applyRecordFilters(ctx: DomainContext, qb: QueryBuilder<Dataset>, query: DatasetListQuery): void {
  applyMetadataFilters(qb, query);
  for (const bound of timeBounds(query)) qb.andWhere({ [TIME_COLUMNS[bound.field]]: { [OPERATORS[bound.op]]: bound.at } });
  if (query.names) qb.andWhere({ name: { $in: query.names } });
  if (query.ids) qb.andWhere({ id: { $in: query.ids.filter(isUuid) } });
  const exclude = query.exclude ?? {};
  // Each exclusion is "id not in (datasets that match)": null-safe for datasets with no organization or license.
  if (exclude.organization) qb.andWhere({ id: { $nin: datasetsOwnedBy(ctx, exclude.organization) } });
  if (exclude.groups) qb.andWhere({ id: { $nin: datasetsWith(ctx, 'groups', exclude.groups) } });
  if (exclude.tags) qb.andWhere({ id: { $nin: datasetsWith(ctx, 'tags', exclude.tags) } });
  if (exclude.res_format) qb.andWhere({ id: { $nin: datasetsWithFormat(ctx, exclude.res_format) } });
  if (exclude.license_id) qb.andWhere({ $or: [{ licenseId: null }, { licenseId: { $nin: exclude.license_id } }] });
  if (exclude.names) qb.andWhere({ name: { $nin: exclude.names } });
  if (exclude.ids) {
    const ids = exclude.ids.filter(isUuid);
    if (ids.length) qb.andWhere({ id: { $nin: ids } });
  }
}

/**
 * The datasets a listing builder finds. Its joins are to-one (the owner organization), so a dataset is
 * one row and a plain count is exact: `count(distinct id)` sorted every match's id first (at a million
 * datasets, the whole catalog 3.2 → 1.7 s, "health" 510 → 375 ms).
 */
export const countDatasets = (qb: QueryBuilder<Dataset>) => qb.clone().getCount('d.id', false);
