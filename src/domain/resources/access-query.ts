import { can } from '../../policies/index.ts';
import type { DatasetSubject } from '../../policies/datasets.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { CALLER_ROLE_SQL, RESOURCE_JSON, subjectOfRow, type SubjectRow } from '../datasets/detail-query.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import type { ResourceFields } from './present.ts';

const ACCESS_SQL = `
  select ${RESOURCE_JSON} as resource, d.state, d.private, d.creator_id, o.state as org_state, ${CALLER_ROLE_SQL} as org_role
    from resources r join datasets d on d.id = r.dataset_id left join groups o on o.id = d.owner_org_id
   where r.id = ?`;

interface AccessRow extends SubjectRow {
  resource: ResourceFields;
}

/**
 * A resource the actor may read, with what its dataset's read policy decided on, in one statement: the
 * reads that need only the resource's own fields (its record, schema, pipeline status, a query) skip
 * hydrating the resource, its dataset and organization and the caller's memberships (bench query: the
 * request floor under every query). 404 alike for a missing resource and one the actor may not see.
 */
export async function loadReadableResource(
  ctx: DomainContext,
  actor: Actor,
  id: string,
): Promise<{ resource: ResourceFields; subject: DatasetSubject }> {
  const [row] = isUuid(id) ? await ctx.em.execute<AccessRow[]>(ACCESS_SQL, [actor.userId, id]) : [];
  if (!row) throw notFound('Resource');
  const subject = subjectOfRow(row);
  if (!can(actor, 'dataset:read', subject)) throw notFound('Resource');
  return { resource: row.resource, subject };
}
