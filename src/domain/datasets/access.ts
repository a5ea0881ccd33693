import { Dataset, Group, Membership, type DatasetState } from '../../entities/index.ts';
import { can } from '../../policies/index.ts';
import type { DatasetSubject, OrgRoles } from '../../policies/datasets.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { byNameOrId } from '../ids.ts';

/** The actor's roles in active organizations; the visibility filter is built from these. */
export async function orgRolesOf(ctx: DomainContext, actor: Actor): Promise<OrgRoles> {
  if (actor.userId === null) return new Map();
  const rows = await ctx.em.find(Membership, { user: actor.userId, group: { kind: 'organization', state: 'active' } });
  return new Map(rows.map((m) => [(m.group as Group).id, m.role]));
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
