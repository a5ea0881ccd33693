import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { SchemaDiff } from '../domain/pipeline/schema-diff.ts';
import type { TableSchema } from '../tabular/column-schema.ts';
import { Resource } from './resource.ts';
import { User } from './user.ts';

const VERSION_REVIEWS: ['pending', 'accepted', 'declined', 'superseded'] = ['pending', 'accepted', 'declined', 'superseded'];

/**
 * One version of a resource's data (issue 30 §2): the bytes a pipeline run read and the preview it made
 * of them, numbered 1, 2, 3… per resource. Written by the preview step in the transaction that makes the
 * preview the served one (src/domain/resources/versions-record.ts); gone with the resource.
 */
export const ResourceVersion = defineEntity({
  name: 'ResourceVersion',
  tableName: 'resource_versions',
  // A retried preview step finds its own version by the run's preview key instead of adding another.
  uniques: [{ properties: ['resource', 'previewKey'] }],
  // At most one version of a resource waits for its editor.
  indexes: [
    {
      name: 'resource_versions_one_pending',
      expression: `create unique index "resource_versions_one_pending" on "resource_versions" ("resource_id") where "review" = 'pending'`,
    },
  ],
  properties: {
    resource: () => p.manyToOne(Resource).primary().deleteRule('cascade'),
    n: p.integer().primary(),
    /** The stored bytes: an upload's file key, or the pipeline's copy of a link. */
    sourceKey: p.string().length(1000),
    /** The link the bytes were fetched from; null for an upload. */
    sourceUrl: p.string().length(2000).nullable(),
    previewKey: p.string().length(1000),
    schema: p.json<TableSchema>(),
    sha256: p.string().length(64).nullable(),
    size: p.bigint('number').nullable(),
    rowCount: p.bigint('number').nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** The activity that brought its bytes (issue 30 §1), when one recorded them. No foreign key on purpose: history outlives nothing here. */
    activityId: p.uuid().nullable(),
    /** Its schema against the version served before it (src/domain/pipeline/schema-diff.ts); null for a first version. */
    schemaDiff: p.json<SchemaDiff>().nullable(),
    /** The schema-change hold (issue 30 §3); null for a version never held. */
    review: p.enum(VERSION_REVIEWS).nullable(),
    reviewedBy: () => p.manyToOne(User).fieldName('reviewed_by').nullable().deleteRule('set null'),
    reviewedAt: p.datetime().nullable(),
    /** What the resource's record said of the version while it served it, to serve it again (src/domain/pipeline/version-record.ts). */
    served: p.json<Record<string, unknown>>().nullable(),
  },
});
export type ResourceVersion = InferEntity<typeof ResourceVersion>;
