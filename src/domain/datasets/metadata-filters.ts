import type { QueryBuilder } from '@mikro-orm/postgresql';
import type { Dataset } from '../../entities/index.ts';
import { coverageFilter } from './coverage-query.ts';
import type { DatasetListQuery } from './list-query.ts';

/**
 * The listing's filters on the metadata record (issue 28 §3): theme, access level, frequency, language
 * and publisher read from `datasets.metadata`, and the coverage filters on the columns the record's
 * periods and places are summed up in. They narrow the same builder as the visibility rule, so a count, a
 * page and the facets (facets.ts, which counts the same record values) describe the same datasets.
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
