import type { Knex, QueryBuilder } from '@mikro-orm/postgresql';
import type { Dataset } from '../../entities/index.ts';
import { coverageFilter } from './coverage-query.ts';
import type { DatasetListQuery } from './list-query.ts';

/**
 * The listing's filters and facets on the metadata record (issue 28 §3): theme, access level, frequency,
 * language and publisher read from `datasets.metadata`, and the coverage filters on the columns the
 * record's periods and places are summed up in. They narrow the same builder as the visibility rule, so
 * a count, a page and the facets describe the same datasets.
 */

/** Each record filter: its query key, and the containment document one value asks for. */
const RECORD_FILTERS: Record<'theme' | 'access_level' | 'frequency' | 'language' | 'publisher', (v: string) => object[]> = {
  // A theme is named by its IRI or its label (DCAT-US themes are labels only).
  theme: (v: string) => [{ theme: [{ uri: v }] }, { theme: [{ label: v }] }],
  access_level: (v: string) => [{ accessLevel: v }],
  frequency: (v: string) => [{ accrualPeriodicity: v }],
  language: (v: string) => [{ language: [v] }],
  publisher: (v: string) => [{ publisher: { name: v } }],
};
export type RecordFilterKey = keyof typeof RECORD_FILTERS;
export const RECORD_FILTER_KEYS = Object.keys(RECORD_FILTERS) as RecordFilterKey[];

/** True when the query filters on the record or its coverage. */
export function hasMetadataFilters(query: DatasetListQuery): boolean {
  return (
    RECORD_FILTER_KEYS.some((key) => query[key] !== undefined) ||
    query.bbox !== undefined ||
    query.temporal_start !== undefined ||
    query.temporal_end !== undefined
  );
}

/**
 * Narrows `qb` (over `datasets d`). Record values are matched by jsonb containment (`@>`), which the
 * metadata's GIN index serves; values within a filter are OR, filters AND. A dataset without coverage is
 * outside every coverage filter (its null box intersects nothing; its null range would be unbounded,
 * hence the explicit `is not null`).
 */
export function applyMetadataFilters(qb: QueryBuilder<Dataset>, query: DatasetListQuery): void {
  for (const key of RECORD_FILTER_KEYS) {
    const values = query[key];
    if (values === undefined) continue;
    const documents = values.flatMap((v) => RECORD_FILTERS[key](v)).map((doc) => JSON.stringify(doc));
    if (documents.length === 0) {
      qb.andWhere('1 = 0');
      continue;
    }
    qb.andWhere(`(${documents.map(() => 'd.metadata @> ?::jsonb').join(' or ')})`, documents);
  }
  const coverage = coverageFilter(query);
  // With words to search for, the keyword index is the selective one: `(…) is true` (the same rows, a
  // null being false either way) keeps the planner from intersecting it with the GiST scans of wide boxes
  // and periods, which cost more than checking the keyword matches one by one.
  const check = (sql: string) => (query.q?.trim() ? `(${sql}) is true` : sql);
  if (coverage.bbox) {
    const [w, s, e, n] = coverage.bbox;
    qb.andWhere(check('d.spatial_box && box(point(?::float8, ?::float8), point(?::float8, ?::float8))'), [w, s, e, n]);
  }
  if (coverage.temporal) {
    qb.andWhere(
      check(
        `d.temporal_start is not null and tstzrange(d.temporal_start, d.temporal_end, '[]') && tstzrange(?::timestamptz, ?::timestamptz, '[]')`,
      ),
      [coverage.from?.toISOString() ?? null, coverage.to?.toISOString() ?? null],
    );
  }
}

/** A facet row: the value to filter by, a label where the record gives one, and how many datasets. */
export interface FacetRow {
  name: string;
  title?: string;
  count: number;
}

/** A jsonb list of the record, or an empty one (a value of another shape is not a list to unnest). */
const listOf = (key: string) => `case when jsonb_typeof(d.metadata -> '${key}') = 'array' then d.metadata -> '${key}' else '[]'::jsonb end`;

/** Per value: `name` the text filtered by, `title` its label (themes), from datasets `d` joined as needed. */
const FACET_SQL: Record<RecordFilterKey, { from: string; name: string; title?: string }> = {
  theme: {
    from: `datasets as d cross join lateral jsonb_array_elements(${listOf('theme')}) as v`,
    name: `coalesce(v.value ->> 'uri', v.value ->> 'label')`,
    title: `max(v.value ->> 'label')`,
  },
  access_level: { from: 'datasets as d', name: `d.metadata ->> 'accessLevel'` },
  frequency: { from: 'datasets as d', name: `d.metadata ->> 'accrualPeriodicity'` },
  language: { from: `datasets as d cross join lateral jsonb_array_elements_text(${listOf('language')}) as v`, name: 'v.value' },
  publisher: { from: 'datasets as d', name: `d.metadata -> 'publisher' ->> 'name'` },
};

/** Datasets per value of each record filter, over `ids` (the whole filtered set), the `limit` largest first. */
export async function metadataFacets(knex: Knex, ids: () => Knex.QueryBuilder, limit: number) {
  const entries = await Promise.all(
    RECORD_FILTER_KEYS.map(async (key) => {
      const { from, name, title } = FACET_SQL[key];
      const rows: Array<{ name: string; title: string | null; count: string }> = await knex
        .select(knex.raw(`${name} as name`), knex.raw(`${title ?? 'null'} as title`))
        .countDistinct('d.id as count')
        .from(knex.raw(from))
        .whereIn('d.id', ids())
        .whereRaw(`${name} is not null`)
        .groupByRaw('1')
        .orderBy([
          { column: 'count', order: 'desc' },
          { column: 'name', order: 'asc' },
        ])
        .limit(limit);
      const facet: FacetRow[] = rows.map((r) => ({
        name: r.name,
        ...(r.title && r.title !== r.name ? { title: r.title } : {}),
        count: Number(r.count),
      }));
      return [key, facet] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<RecordFilterKey, FacetRow[]>;
}
