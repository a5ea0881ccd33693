import type { Actor } from '../domain/actor.ts';
import type { DatasetState, MemberRole } from '../entities/index.ts';
import { hasRole } from './roles.ts';
import { recordPolicyConsulted } from './audit.ts';

/**
 * Who may see and change a dataset, in one place, in two forms that must agree: a predicate over one
 * loaded dataset (`canReadDataset`, for details and writes) and a query filter (`visibleDatasetsFilter`)
 * that lists, counts and facets apply inside SQL, so nothing is ever filtered from a page afterwards.
 */
export interface DatasetSubject {
  state: DatasetState;
  private: boolean;
  creatorId: string | null;
  /** The actor's role in the owning organization, or null when none (or no organization). */
  orgRole: MemberRole | null;
  /** The owning organization is soft-deleted: its datasets are hidden until it is restored. */
  orgDeleted: boolean;
}

export function canReadDataset(a: Actor, s: DatasetSubject): boolean {
  recordPolicyConsulted();
  if (a.sysadmin) return true;
  if (s.orgDeleted) return false;
  switch (s.state) {
    case 'active':
      return !s.private || hasRole(s.orgRole, 'member');
    case 'draft':
      return (a.userId !== null && s.creatorId === a.userId) || hasRole(s.orgRole, 'editor');
    case 'deleted':
      return hasRole(s.orgRole, 'editor');
  }
}

/** Editing: editors of the owning organization; a draft also by its creator. */
export function canEditDataset(a: Actor, s: DatasetSubject): boolean {
  recordPolicyConsulted();
  if (a.sysadmin || hasRole(s.orgRole, 'editor')) return true;
  return s.state === 'draft' && a.userId !== null && s.creatorId === a.userId;
}

/** The actor's organization roles, by organization id, as the query filter needs them. */
export type OrgRoles = ReadonlyMap<string, MemberRole>;

/**
 * Soft-deleting an organization hides its datasets from everyone but sysadmins without touching them,
 * so a restore brings back exactly what was there and a purge removes it.
 */
const inLiveOrganization = { $or: [{ ownerOrg: null }, { ownerOrg: { state: 'active' as const } }] };

/** The same rule as canReadDataset, as a MikroORM filter over `datasets`. */
export function visibleDatasetsFilter(a: Actor, roles: OrgRoles) {
  recordPolicyConsulted();
  if (a.sysadmin) return {};
  const memberOf = [...roles.keys()];
  const editorOf = [...roles].filter(([, role]) => hasRole(role, 'editor')).map(([id]) => id);
  return {
    $and: [
      inLiveOrganization,
      {
        $or: [
          { state: 'active' as const, private: false },
          ...(memberOf.length ? [{ state: 'active' as const, ownerOrg: { $in: memberOf } }] : []),
          ...(a.userId ? [{ state: 'draft' as const, creator: a.userId }] : []),
          ...(editorOf.length ? [{ state: { $in: ['draft' as const, 'deleted' as const] }, ownerOrg: { $in: editorOf } }] : []),
        ],
      },
    ],
  };
}

/**
 * The same rule for the vector index and the kept facet counts, which hold active datasets only: sysadmins see every point,
 * members also their organizations' private ones, and no one else the points of a soft-deleted
 * organization. `includePrivate` is the listing's `private` flag: without it, public points only.
 */
export function visibleVectorsFilter(a: Actor, roles: OrgRoles, deletedOrgIds: string[], includePrivate: boolean) {
  recordPolicyConsulted();
  const privateOrgIds: string[] | 'all' = !includePrivate ? [] : a.sysadmin ? 'all' : [...roles.keys()];
  return { privateOrgIds, ...(a.sysadmin || deletedOrgIds.length === 0 ? {} : { excludeOrgIds: deletedOrgIds }) };
}

/**
 * The draft listing (spec §4): drafts the actor created plus drafts of organizations where it is an
 * editor or above. Narrower than what a sysadmin may open one by one, on purpose: it is a work list.
 */
export function draftListingFilter(a: Actor, roles: OrgRoles) {
  recordPolicyConsulted();
  const editorOf = [...roles].filter(([, role]) => hasRole(role, 'editor')).map(([id]) => id);
  return {
    state: 'draft' as const,
    $and: [inLiveOrganization, { $or: [{ creator: a.userId }, ...(editorOf.length ? [{ ownerOrg: { $in: editorOf } }] : [])] }],
  };
}
