import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { baseProperties } from './base.ts';
import { Dataset } from './dataset.ts';

export const URL_TYPES: ['upload', 'link'] = ['upload', 'link'];
export type UrlType = (typeof URL_TYPES)[number];

/** A file or link of a dataset. `extras` is written by the system only (pipeline, preview). */
export const Resource = defineEntity({
  name: 'Resource',
  tableName: 'resources',
  uniques: [{ properties: ['dataset', 'url'] }],
  properties: {
    ...baseProperties,
    dataset: () => p.manyToOne(Dataset).deleteRule('cascade').index(),
    name: p.string().length(1000).nullable(),
    description: p.text().nullable(),
    url: p.string().length(2000).nullable(),
    urlType: p.enum(URL_TYPES),
    format: p.string().length(100).nullable(),
    mimetype: p.string().length(200).nullable(),
    size: p.bigint('number').nullable(),
    hash: p.string().length(64).nullable(),
    position: p.integer(),
    extras: p.json<Record<string, unknown>>().default('{}'),
    /** The distribution record beyond the fields above (src/domain/metadata/distribution-record.ts). */
    metadata: p.json<Record<string, unknown>>().default('{}'),
    /** Free key/value pairs a publisher or source gives (CKAN's resource extras): `extras` is the system's. */
    customExtras: p.json<Array<{ key: string; value: string }>>().default('[]'),
    /** The values of the fields the metadata profiles define for resources (src/domain/metadata/profiles.ts). */
    customFields: p.json<Record<string, unknown>>().default('{}'),
  },
});
export type Resource = InferEntity<typeof Resource>;
