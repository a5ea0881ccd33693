import { Dataset, Group, type DatasetState, type MemberRole } from '../../entities/index.ts';
import { can } from '../../policies/index.ts';
import type { DatasetSubject, OrgRoles } from '../../policies/datasets.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { byNameOrId, isUuid } from '../ids.ts';
import { CALLER_ROLE_SQL, subjectOfRow, type SubjectRow } from './detail-query.ts';

/** The actor's roles in active organizations; the visibility filter is built from these. */
export async function orgRolesOf(ctx: DomainContext, actor: Actor): Promise<OrgRoles> {
  if (actor.userId === null) return new Map();
  // A plain statement: every write asks for the roles, and hydrating memberships cost more than the query.
  const rows = await ctx.em.execute<Array<{ group_id: string; role: MemberRole }>>(
    `select m.group_id, m.role from memberships m join groups g on g.id = m.group_id
      where m.user_id = ? and g.kind = 'organization' and g.state = 'active'`,
    [actor.userId],
  );
  return new Map(rows.map((row) => [row.group_id, row.role]));
}

/** Soft-deleted organizations: their datasets are hidden from all but sysadmins (the policy's filters). */
export async function deletedOrgIds(ctx: DomainContext): Promise<string[]> {
  const rows = await ctx.em.find(Group, { kind: 'organization', state: 'deleted' }, { fields: ['id'], disableIdentityMap: true });
  return rows.map((g) => g.id);
}

export function datasetSubject(dataset: Dataset, roles: OrgRoles): DatasetSubject {
  const org = dataset.ownerOrg as Group | null | undefined;
  const orgId = org?.id;
  return {
    orgDeleted: org?.state === 'deleted',
    state: dataset.state,
    private: dataset.private,
    creatorId: (dataset.creator as { id: string } | null | undefined)?.id ?? null,
    orgRole: orgId ? (roles.get(orgId) ?? null) : null,
  };
}

/**
 * Loads a dataset the actor may see, in one of `states`, with what its presenter needs. Reads ask for
 * drafts only when the caller does (`?state=draft`): drafts appear nowhere else. Anything the actor may
 * not see is 404.
 */
export async function loadVisibleDataset(
  ctx: DomainContext,
  actor: Actor,
  nameOrId: string,
  states: DatasetState[],
  populate: ReadonlyArray<'ownerOrg' | 'tags' | 'groups'> = ['ownerOrg', 'tags', 'groups'],
) {
  const dataset = await ctx.em.findOne(Dataset, byNameOrId(nameOrId), { populate: [...populate] });
  const roles = await orgRolesOf(ctx, actor);
  if (!dataset || !states.includes(dataset.state)) throw notFound('Dataset');
  const subject = datasetSubject(dataset, roles);
  if (!can(actor, 'dataset:read', subject)) throw notFound('Dataset');
  return { dataset, subject, roles };
}

const SUBJECT_SQL = (column: 'id' | 'name') => `
  select d.id, d.state, d.private, d.creator_id, o.id as org_id, o.state as org_state, ${CALLER_ROLE_SQL} as org_role
    from datasets d left join groups o on o.id = d.owner_org_id
   where d.${column} = ?`;

/**
 * loadVisibleDataset for a read that may well find nothing (ckanapi asks for each record of a load before
 * it creates it): the check is one statement, the caller's role read with the dataset, so a miss costs one
 * round trip and what a dataset hidden from the caller costs. The record is loaded only after it passes, and
 * judged again on what was loaded: a change in between (made private, deleted) is seen.
 */
export async function loadDatasetIfVisible(ctx: DomainContext, actor: Actor, nameOrId: string, states: DatasetState[]) {
  const [row] = await ctx.em.execute<Array<SubjectRow & { id: string; org_id: string | null }>>(
    SUBJECT_SQL(isUuid(nameOrId) ? 'id' : 'name'),
    [actor.userId, nameOrId],
  );
  if (!row || !states.includes(row.state) || !can(actor, 'dataset:read', subjectOfRow(row))) throw notFound('Dataset');
  const dataset = await ctx.em.findOne(Dataset, row.id, { populate: ['ownerOrg', 'tags', 'groups'] });
  const roles: OrgRoles = new Map(row.org_id && row.org_role ? [[row.org_id, row.org_role]] : []);
  if (!dataset || !states.includes(dataset.state) || !can(actor, 'dataset:read', datasetSubject(dataset, roles))) throw notFound('Dataset');
  return dataset;
}

/** Whether the actor may edit the dataset: what a page asks before it offers an edit link. */
export async function mayEditDataset(ctx: DomainContext, actor: Actor, nameOrId: string): Promise<boolean> {
  if (actor.userId === null) return false;
  try {
    const { subject } = await loadVisibleDataset(ctx, actor, nameOrId, ['draft', 'active'], ['ownerOrg']);
    return can(actor, 'dataset:edit', subject);
  } catch {
    return false;
  }
}
