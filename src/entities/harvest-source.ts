import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { baseProperties } from './base.ts';
import { Group } from './group.ts';

export const HARVEST_SOURCE_TYPES: ['ckan', 'dcat-us', 'dcat-ap'] = ['ckan', 'dcat-us', 'dcat-ap'];
export type HarvestSourceType = (typeof HARVEST_SOURCE_TYPES)[number];

/**
 * Another catalog that Almanac imports (issue 18): a CKAN site's root, a DCAT-US `data.json`, or a
 * DCAT-AP catalog document. Set up by a sysadmin; each run is a Temporal workflow `harvest-<id>`.
 */
export const HarvestSource = defineEntity({
  name: 'HarvestSource',
  tableName: 'harvest_sources',
  properties: {
    ...baseProperties,
    name: p.string().length(100).unique(),
    type: p.enum(HARVEST_SOURCE_TYPES),
    url: p.string().length(2000),
    /**
     * The organization that receives the datasets (dcat-us, dcat-ap); for ckan, the one that receives
     * datasets without an organization at the source (the others are mirrored by name).
     */
    organization: () => p.manyToOne(Group).nullable().deleteRule('set null').index(),
    /** Soft-delete the datasets that disappeared from the source (otherwise they are only counted). */
    deleteRemoved: p.boolean().default(false),
    /** `daily`, `weekly` or a cron expression: a Temporal Schedule `harvest-schedule-<id>`. */
    schedule: p.string().length(100).nullable(),
    /**
     * A run stops, failed with this said as its reason, past this many pages or this many minutes: a source
     * that pages forever (a loop the repeat checks cannot see, an endless feed) never holds a worker for good.
     */
    maxPages: p.integer().default(10_000),
    maxRunMinutes: p.integer().default(24 * 60),
    /**
     * DCAT-US sources, as ckanext-datajson configures them: datasets whose field equals one of the values
     * are left out (`{"accessLevel": ["non-public"]}`); empty fields take the defaults (src/domain/harvest/source-filters.ts).
     */
    filters: p.json<Record<string, Array<string | number | boolean>>>().default('{}'),
    defaults: p.json<Record<string, unknown>>().default('{}'),
  },
});
export type HarvestSource = InferEntity<typeof HarvestSource>;
