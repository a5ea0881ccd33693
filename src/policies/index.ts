import type { Actor } from '../domain/actor.ts';
import { forbidden, unauthenticated } from '../domain/errors.ts';
import type { MemberRole } from '../entities/index.ts';
import type { RecordState } from '../entities/base.ts';
import { canEditDataset, canReadDataset, type DatasetSubject } from './datasets.ts';
import { hasRole } from './roles.ts';
import { recordPolicyConsulted } from './audit.ts';

/**
 * Every permission decision of spec §5 lives in this table: one pure rule per action, over the actor
 * and the facts about the subject the caller already loaded (its state, the actor's role in it).
 */
export interface GroupSubject {
  state: RecordState;
  /** The actor's role in this organization or category, or null when not a member. */
  role: MemberRole | null;
}

export interface OwnedSubject {
  ownerId: string;
}

export { hasRole } from './roles.ts';

const rules = {
  /** Active organizations and categories are public (their counts apply the dataset visibility rule). */
  'group:list': () => true,
  'group:list-deleted': (a: Actor) => a.sysadmin,
  'group:create': (a: Actor) => a.sysadmin,
  'group:read': (a: Actor, s: GroupSubject) => s.state === 'active' || a.sysadmin,
  'group:update': (a: Actor, s: GroupSubject) => a.sysadmin || hasRole(s.role, 'admin'),
  'group:delete': (a: Actor, s: GroupSubject) => a.sysadmin || hasRole(s.role, 'admin'),
  'group:restore': (a: Actor) => a.sysadmin,
  'group:purge': (a: Actor) => a.sysadmin,
  'group:read-members': (a: Actor, s: GroupSubject) => a.sysadmin || hasRole(s.role, 'member'),
  'group:manage-members': (a: Actor, s: GroupSubject) => a.sysadmin || hasRole(s.role, 'admin'),
  'user:search': (a: Actor) => a.userId !== null,
  'user:administer': (a: Actor) => a.sysadmin,
  /** A user's private fields (email, sysadmin flag) and memberships: the user themself and sysadmins. */
  'user:read-private': (a: Actor, s: OwnedSubject) => a.sysadmin || (a.userId !== null && a.userId === s.ownerId),
  'token:manage': (a: Actor, s: OwnedSubject) => a.userId === s.ownerId,
  'dataset:read': canReadDataset,
  'dataset:edit': canEditDataset,
  /** Creating an active dataset in, or moving any dataset into, an organization. */
  'dataset:place-in-org': (a: Actor, s: { orgRole: MemberRole | null }) => a.sysadmin || hasRole(s.orgRole, 'editor'),
  'dataset:create-draft': (a: Actor) => a.userId !== null,
  /** Creating a dataset under the ids it had elsewhere (CKAN's package_create takes them from sysadmins only). */
  'dataset:keep-ids': (a: Actor) => a.sysadmin,
  'dataset:add-to-category': (a: Actor, s: { categoryRole: MemberRole | null }) => a.sysadmin || hasRole(s.categoryRole, 'member'),
  'dataset:publish': (a: Actor, s: DatasetSubject) => a.sysadmin || hasRole(s.orgRole, 'editor'),
  'dataset:delete': canEditDataset,
  'dataset:restore': (a: Actor) => a.sysadmin,
  'dataset:purge': (a: Actor, s: DatasetSubject) => a.sysadmin || hasRole(s.orgRole, 'admin'),
  'self:manage': (a: Actor) => a.userId !== null,
  'site:administer': (a: Actor) => a.sysadmin,
  /** Harvest sources point the server at any address and write into any organization: sysadmins only. */
  'harvest:administer': (a: Actor) => a.sysadmin,
} satisfies Record<string, (actor: Actor, subject: never) => boolean>;

export type Action = keyof typeof rules;
type SubjectOf<A extends Action> = Parameters<(typeof rules)[A]>[1];
type ActionArgs<A extends Action> = SubjectOf<A> extends undefined ? [] : [subject: NonNullable<SubjectOf<A>>];

export function can<A extends Action>(actor: Actor, action: A, ...[subject]: ActionArgs<A>): boolean {
  recordPolicyConsulted();
  const rule = rules[action] as (actor: Actor, subject: unknown) => boolean;
  return rule(actor, subject);
}

/** Throws 401 for an anonymous caller and 403 for a signed-in one when the rule says no. */
export function authorize<A extends Action>(actor: Actor, action: A, ...args: ActionArgs<A>): void {
  if (can(actor, action, ...args)) return;
  throw actor.userId === null ? unauthenticated() : forbidden();
}
