import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { baseProperties } from './base.ts';
import { Group } from './group.ts';
import { HarvestSource } from './harvest-source.ts';
import { Tag } from './tag.ts';
import { User } from './user.ts';

export const DATASET_STATES: ['draft', 'active', 'deleted'] = ['draft', 'active', 'deleted'];
export type DatasetState = (typeof DATASET_STATES)[number];

/** A dataset ("package" in paths). Drafts, active and soft-deleted datasets share the table. */
export const Dataset = defineEntity({
  name: 'Dataset',
  tableName: 'datasets',
  uniques: [{ name: 'datasets_harvest_remote_unique', properties: ['harvestSource', 'harvestRemoteId'] }],
  indexes: [
    {
      name: 'datasets_search_vector_index',
      expression: 'create index "datasets_search_vector_index" on "datasets" using gin ("search_vector")',
    },
    {
      // Active datasets without their keyword document: a process died between a creation's commit and its search write.
      name: 'datasets_unsynced_index',
      expression: `create index "datasets_unsynced_index" on "datasets" ("id") where "state" = 'active' and "search_vector" is null`,
    },
    {
      name: 'datasets_name_trgm_index',
      expression: 'create index "datasets_name_trgm_index" on "datasets" using gin ("name" gin_trgm_ops)',
    },
    {
      name: 'datasets_spatial_box_index',
      expression: 'create index "datasets_spatial_box_index" on "datasets" using gist ("spatial_box")',
    },
    {
      name: 'datasets_temporal_range_index',
      expression: `create index "datasets_temporal_range_index" on "datasets" using gist (tstzrange("temporal_start", "temporal_end", '[]'))`,
    },
    {
      name: 'datasets_metadata_index',
      expression: 'create index "datasets_metadata_index" on "datasets" using gin ("metadata" jsonb_path_ops)',
    },
    {
      // The listing's orders by time, newest first, ties by id: a page is read from the index, not sorted from every dataset.
      name: 'datasets_updated_index',
      expression: 'create index "datasets_updated_index" on "datasets" ("updated_at" desc, "id")',
    },
    {
      name: 'datasets_created_index',
      expression: 'create index "datasets_created_index" on "datasets" ("created_at" desc, "id")',
    },
    {
      name: 'datasets_title_trgm_index',
      expression: 'create index "datasets_title_trgm_index" on "datasets" using gin ("title" gin_trgm_ops)',
    },
  ],
  properties: {
    ...baseProperties,
    name: p.string().length(100).unique(),
    /** True while the name is the generated `untitled-…` placeholder, which cannot be published. */
    nameGenerated: p.boolean().default(false),
    title: p.string().length(1000).nullable(),
    notes: p.text().nullable(),
    ownerOrg: () => p.manyToOne(Group).nullable().deleteRule('restrict').index(),
    licenseId: p.string().length(100).nullable(),
    private: p.boolean().default(false),
    state: p.enum(DATASET_STATES).index(),
    author: p.string().length(300).nullable(),
    authorEmail: p.string().length(320).nullable(),
    maintainer: p.string().length(300).nullable(),
    maintainerEmail: p.string().length(320).nullable(),
    version: p.string().length(100).nullable(),
    url: p.string().length(2000).nullable(),
    /** The DCAT-AP / DCAT-US record beyond the fields above (src/domain/metadata/dataset-record.ts): only the keys set. */
    metadata: p.json<Record<string, unknown>>().default('{}'),
    /** CKAN's free key/value pairs, in order: `[{key, value}]`. */
    extras: p.json<Array<{ key: string; value: string }>>().default('[]'),
    /** The values of the fields the metadata profiles define (src/domain/metadata/profiles.ts). */
    customFields: p.json<Record<string, unknown>>().default('{}'),
    /** The coverage filters' columns, derived from `metadata` on every write (src/domain/metadata/coverage.ts). */
    temporalStart: p.datetime().nullable(),
    temporalEnd: p.datetime().nullable(),
    spatialBox: p.string().columnType('box').nullable(),
    creator: () => p.manyToOne(User).nullable().deleteRule('set null').index(),
    publishedAt: p.datetime().nullable(),
    deletedAt: p.datetime().nullable(),
    /** A draft deletion that failed partway; the same DELETE completes it. */
    deletionIncomplete: p.boolean().default(false),
    /**
     * The keyword search document, written by the publish-sync workflow only (raw SQL); null unless
     * active. Never hydrated nor tracked, so no flush of a loaded dataset can overwrite it.
     */
    searchVector: p.string().columnType('tsvector').nullable().lazy().hydrate(false).trackChanges(false),
    /**
     * Where a harvested dataset came from (issue 18): its source, the record's id and page there, when it
     * was last harvested, and a hash of the record as mapped, so a re-run updates only what changed. Null
     * for datasets made here, and for those whose source was deleted without purging them (detached).
     */
    harvestSource: () => p.manyToOne(HarvestSource).nullable().deleteRule('set null'),
    harvestRemoteId: p.string().length(1000).nullable(),
    harvestRemoteUrl: p.string().length(2000).nullable(),
    harvestedAt: p.datetime().nullable(),
    harvestHash: p.string().length(64).nullable(),
    tags: () => p.manyToMany(Tag).pivotTable('dataset_tags').owner(),
    groups: () => p.manyToMany(Group).pivotTable('dataset_groups').owner(),
  },
});
export type Dataset = InferEntity<typeof Dataset>;
