import type { Knex, QueryBuilder } from '@mikro-orm/postgresql';
import type { Dataset, DatasetState } from '../../entities/index.ts';
import { pgArray } from '../../db.ts';
import type { DomainContext } from '../context.ts';
import { RECORD_FILTER_KEYS, type RecordFilterKey } from './metadata-filters.ts';

/** A facet row: the value to filter by, a label where there is one, and how many datasets. */
export interface FacetRow {
  name: string;
  title?: string;
  count: number;
}

const CORE_FACETS = ['organization', 'groups', 'tags', 'res_format', 'license_id'] as const;
type FacetName = (typeof CORE_FACETS)[number] | RecordFilterKey;

export type DatasetFacets = Record<FacetName, FacetRow[]>;

const FACET_NAMES: FacetName[] = [...CORE_FACETS, ...RECORD_FILTER_KEYS];

/**
 * A dataset's facet values are `facet_keys_of`'s (migrations/Migration20261129000000_FacetCounts.ts): its
 * organization and categories by id, tags, formats, license and record values, and itself once under
 * `datasets` (the kept total, no facet). `summed` gives `(facet, name, title, count)` per value; this names
 * organizations and categories and keeps the `limit` largest of each facet, ties by name.
 */
const ranked = (summed: string) => `
  with summed as (${summed}),
       named as (select s.facet, coalesce(g.name, s.name) as name, case when g.id is null then s.title else g.title end as title, s.count
                   from summed s left join groups g on s.facet in ('organization', 'groups') and g.id::text = s.name
                  where s.facet <> 'datasets' and (s.facet not in ('organization', 'groups') or g.id is not null)),
       ranked as (select named.*, row_number() over (partition by facet order by count desc, name) as rank from named)
  select facet, name, title, count from ranked where rank <= ? order by facet, rank`;

/** Per value (facet and name): its largest label and how many datasets of `v` (a query of ids) have it. */
const SUMMED_KEPT = `
  select fv.facet, fv.name, max(nullif(fv.title, '')) as title, sum(c.count) as count
    from (select k as value_id, count(*) as count from (?) as v join dataset_facet_keys fk on fk.dataset_id = v.id
            cross join lateral unnest(fk.keys) as k group by 1) as c
    join facet_values fv on fv.id = c.value_id group by 1, 2`;

/** The same, for values worked out now (datasets that are not active have none kept). */
const SUMMED_NOW = `select facet, name, max(nullif(title, '')) as title, count(*) as count from facet_keys_of(?::uuid[]) group by 1, 2`;

/** Facets of the rows `(facet, name, title, count)` that `ranked` leaves, each facet largest first. */
export async function rankedFacets(knex: Knex, summed: string, bindings: Knex.RawBinding[], limit: number): Promise<DatasetFacets> {
  const found = await knex.raw(ranked(summed), [...bindings, limit]);
  const rows = found.rows as Array<{ facet: FacetName; name: string; title: string | null; count: string }>;
  const facets = Object.fromEntries(FACET_NAMES.map((facet) => [facet, [] as FacetRow[]])) as DatasetFacets;
  for (const row of rows) {
    // Organizations and categories always carry their title; a record value only a label that says more than it.
    const labelled = typeof row.title === 'string' && (row.facet === 'organization' || row.facet === 'groups' || row.title !== row.name);
    facets[row.facet]?.push({ name: String(row.name), ...(labelled ? { title: row.title! } : {}), count: Number(row.count) });
  }
  return facets;
}

/** A wider hash than the connection's default: a filtered set of a large catalog is millions of values. */
const FACETS_WORK_MEM = '64MB';

/**
 * Datasets per organization, category, tag, format, license and record value over the whole filtered set
 * (`filtered`, over `datasets d`), not the page; the `limit` largest of each. Active datasets' values are
 * read from what the search sync keeps of them (`dataset_facet_keys`: one row a dataset, where counting from
 * the tags, categories and resources themselves read each of them: "health" at a million datasets 3.3 s);
 * deleted ones are worked out by `facet_keys_of` for the set's ids.
 */
export async function datasetFacets(
  ctx: DomainContext,
  filtered: QueryBuilder<Dataset>,
  state: DatasetState,
  limit: number,
): Promise<DatasetFacets> {
  const knex = ctx.em.getKnex();
  const ids = filtered.clone().getKnexQuery().clearSelect().clearOrder().select('d.id');
  return knex.transaction(async (trx) => {
    await trx.raw(`select set_config('work_mem', ?, true)`, [FACETS_WORK_MEM]);
    if (state === 'active') return rankedFacets(trx, SUMMED_KEPT, [ids], limit);
    const rows = (await trx.raw('?', [ids])).rows as Array<{ id: string }>;
    return rankedFacets(trx, SUMMED_NOW, [pgArray(rows.map((r) => r.id))], limit);
  });
}
