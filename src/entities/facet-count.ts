import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Dataset } from './dataset.ts';

/**
 * Facet counts kept as datasets change (migrations/Migration20261129000000_FacetCounts.ts has the triggers
 * and `facet_keys_of`; src/search/facet-keys.ts writes and folds). A scope is where a count is visible:
 * the owning organization's id as text ('' for none) and the dataset's private flag. Written and read
 * in SQL only: these definitions keep the schema and the migrations in step.
 */

/** A facet value, numbered once: `key` is `facet_value_key(facet, name, title)`. */
export const FacetValue = defineEntity({
  name: 'FacetValue',
  tableName: 'facet_values',
  properties: {
    id: p.integer().primary().autoincrement(),
    facet: p.text(),
    name: p.text(),
    title: p.text(),
    key: p.uuid().unique(),
  },
});
export type FacetValue = InferEntity<typeof FacetValue>;

/** An active dataset's facet values (`facet_values` ids), as the counts last took them in. */
export const DatasetFacetKeys = defineEntity({
  name: 'DatasetFacetKeys',
  tableName: 'dataset_facet_keys',
  properties: {
    dataset: () => p.manyToOne(Dataset).primary().deleteRule('cascade'),
    scope: p.text(),
    private: p.boolean(),
    keys: p.array<number>().columnType('int[]'),
  },
});
export type DatasetFacetKeys = InferEntity<typeof DatasetFacetKeys>;

/** Active datasets per facet value and scope, as of the last fold. */
export const FacetCount = defineEntity({
  name: 'FacetCount',
  tableName: 'facet_counts',
  properties: {
    valueId: p.integer().primary(),
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
    valueId: p.integer(),
    scope: p.text(),
    private: p.boolean(),
    n: p.bigint('number'),
  },
});
export type FacetCountChange = InferEntity<typeof FacetCountChange>;
