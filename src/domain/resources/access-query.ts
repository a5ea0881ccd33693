import { can } from '../../policies/index.ts';
import type { DatasetSubject } from '../../policies/datasets.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { CALLER_ROLE_SQL, RESOURCE_JSON, subjectOfRow, type SubjectRow } from '../datasets/detail-query.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import type { ResourceFields } from './present.ts';

const accessSql = (resource: string) => `
  select ${resource} as resource, d.state, d.private, d.creator_id, o.state as org_state, ${CALLER_ROLE_SQL} as org_role
    from resources r join datasets d on d.id = r.dataset_id left join groups o on o.id = d.owner_org_id
   where r.id = ?`;
const ACCESS_SQL = accessSql(RESOURCE_JSON);
/** Only what a DataStore read needs: the whole record, extras and all, is built and parsed for nothing. */
const PREVIEW_ACCESS_SQL = accessSql(
  `json_build_object('id', r.id, 'preview', r.extras -> 'preview', 'queryable', r.extras -> 'queryable')`,
);

interface AccessRow<R> extends SubjectRow {
  resource: R;
}

/** A resource's preview record, and whether its pipeline made it queryable. */
export interface ResourcePreviewFields {
  id: string;
  preview: unknown;
  queryable: unknown;
}

async function loadReadable<R>(ctx: DomainContext, actor: Actor, sql: string, id: string) {
  const [row] = isUuid(id) ? await ctx.em.execute<AccessRow<R>[]>(sql, [actor.userId, id]) : [];
  if (!row) throw notFound('Resource');
  const subject = subjectOfRow(row);
  if (!can(actor, 'dataset:read', subject)) throw notFound('Resource');
  return { resource: row.resource, subject };
}

/**
 * A resource the actor may read, with what its dataset's read policy decided on, in one statement: the
 * reads that need only the resource's own fields (its record, schema, pipeline status, a query) skip
 * hydrating the resource, its dataset and organization and the caller's memberships (bench query: the
 * request floor under every query). 404 alike for a missing resource and one the actor may not see.
 */
export function loadReadableResource(
  ctx: DomainContext,
  actor: Actor,
  id: string,
): Promise<{ resource: ResourceFields; subject: DatasetSubject }> {
  return loadReadable<ResourceFields>(ctx, actor, ACCESS_SQL, id);
}

/** loadReadableResource for the reads that need only the resource's preview (the DataStore's). */
export function loadReadablePreview(ctx: DomainContext, actor: Actor, id: string) {
  return loadReadable<ResourcePreviewFields>(ctx, actor, PREVIEW_ACCESS_SQL, id);
}
