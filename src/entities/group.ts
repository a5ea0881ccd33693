import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { baseProperties, RECORD_STATES } from './base.ts';

/**
 * Organizations and categories share one table, told apart by `kind`, as in CKAN: the two have the
 * same fields, member roles and lifecycle, so one set of rules serves both. Names are unique per kind.
 */
export const GROUP_KINDS: ['organization', 'category'] = ['organization', 'category'];
export type GroupKind = (typeof GROUP_KINDS)[number];

export const Group = defineEntity({
  name: 'Group',
  tableName: 'groups',
  uniques: [{ properties: ['kind', 'name'] }],
  properties: {
    ...baseProperties,
    kind: p.enum(GROUP_KINDS),
    name: p.string().length(100),
    title: p.string().length(300),
    description: p.text().nullable(),
    imageUrl: p.string().length(2000).nullable(),
    state: p.enum(RECORD_STATES).default('active'),
    deletedAt: p.datetime().nullable(),
  },
});
export type Group = InferEntity<typeof Group>;
