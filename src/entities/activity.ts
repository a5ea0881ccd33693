import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const ACTIVITY_OBJECT_TYPES: ['dataset', 'organization', 'category'] = ['dataset', 'organization', 'category'];
export type ActivityObjectType = (typeof ACTIVITY_OBJECT_TYPES)[number];

/**
 * One change to a dataset, an organization or a category, written by the database's triggers at the
 * change's commit (migration 20261127100000_Activities); the application only reads them. `snapshot` is
 * the record after the change (null once purged); `state`, `private`, `creatorId`, `organizationId` and
 * `orgDeleted` are what the read policy decided on then, so history is filtered in SQL as the live
 * records are.
 */
export const Activity = defineEntity({
  name: 'Activity',
  tableName: 'activities',
  indexes: [
    { name: 'activities_object_tx', expression: 'create unique index "activities_object_tx" on "activities" ("object_id", "tx_id")' },
    { name: 'activities_object_seq', expression: 'create index "activities_object_seq" on "activities" ("object_id", "seq")' },
    { name: 'activities_actor_seq', expression: 'create index "activities_actor_seq" on "activities" ("actor_id", "seq")' },
    {
      name: 'activities_organization_seq',
      expression: 'create index "activities_organization_seq" on "activities" ("organization_id", "seq")',
    },
    { name: 'activities_type_seq', expression: 'create index "activities_type_seq" on "activities" ("object_type", "seq")' },
  ],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    /** Commit order: what the triggers recorded last has the highest. */
    seq: p.bigint('string').autoincrement(),
    objectType: p.string().length(16),
    objectId: p.uuid(),
    action: p.string().length(16),
    actorId: p.uuid().nullable(),
    harvestRunId: p.uuid().nullable(),
    txId: p.bigint('string'),
    createdAt: p.datetime().defaultRaw('clock_timestamp()'),
    organizationId: p.uuid().nullable(),
    state: p.string().length(16).nullable(),
    private: p.boolean().nullable(),
    creatorId: p.uuid().nullable(),
    orgDeleted: p.boolean().default(false),
    /** A group's change of members alone: for those who may see its members (migration 20261128010000). */
    membersOnly: p.boolean().default(false),
    snapshot: p.json<Record<string, unknown>>().nullable(),
  },
});
export type Activity = InferEntity<typeof Activity>;
