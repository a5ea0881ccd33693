import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Resource } from './resource.ts';

export const LINK_CHECK_STATUSES: ['ok', 'broken', 'timeout'] = ['ok', 'broken', 'timeout'];
export type LinkCheckStatus = (typeof LINK_CHECK_STATUSES)[number];

/**
 * The latest health check of a link resource, written by the link-check workflow (one row per resource,
 * replaced by each check; gone with the resource).
 */
export const LinkCheck = defineEntity({
  name: 'LinkCheck',
  tableName: 'link_checks',
  properties: {
    resource: () => p.manyToOne(Resource).primary().deleteRule('cascade'),
    /** The URL that was checked (the resource's URL may have changed since). */
    url: p.string().length(2000),
    status: p.enum(LINK_CHECK_STATUSES).index(),
    httpStatus: p.integer().nullable(),
    checkedAt: p.datetime().index(),
    latencyMs: p.integer(),
    error: p.string().length(1000).nullable(),
  },
});
export type LinkCheck = InferEntity<typeof LinkCheck>;
