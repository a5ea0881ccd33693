import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Dataset } from './dataset.ts';

/**
 * Facet counts kept as datasets change (migrations/Migration20261129000000_FacetCounts.ts has the triggers
 * and `facet_keys_of`; src/search/facet-keys.ts writes and folds). A scope is where a count is visible:
 * the owning organization's id as text ('' for none) and the dataset's private flag. Written and read
 * in SQL only: these definitions keep the schema and the migrations in step.
 */

/** An active dataset's facet values, `[facet, name, title]` each, as the counts last took them in. */
export const DatasetFacetKeys = defineEntity({
  name: 'DatasetFacetKeys',
  tableName: 'dataset_facet_keys',
  properties: {
    dataset: () => p.manyToOne(Dataset).primary().deleteRule('cascade'),
    scope: p.text(),
    private: p.boolean(),
    keys: p.json<Array<[string, string, string]>>(),
  },
});
export type DatasetFacetKeys = InferEntity<typeof DatasetFacetKeys>;

/** Active datasets per facet value and scope, as of the last fold. */
export const FacetCount = defineEntity({
  name: 'FacetCount',
  tableName: 'facet_counts',
  properties: {
    facet: p.text().primary(),
    name: p.text().primary(),
    title: p.text().primary(),
    scope: p.text().primary(),
    private: p.boolean().primary(),
    n: p.bigint('number'),
  },
});
export type FacetCount = InferEntity<typeof FacetCount>;

/** What statements on dataset_facet_keys added (n > 0) and took away since the last fold. */
export const FacetCountChange = defineEntity({
  name: 'FacetCountChange',
  tableName: 'facet_count_changes',
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    facet: p.text(),
    name: p.text(),
    title: p.text(),
    scope: p.text(),
    private: p.boolean(),
    n: p.bigint('number'),
  },
});
export type FacetCountChange = InferEntity<typeof FacetCountChange>;
