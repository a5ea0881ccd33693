import { Group, Membership, User, type GroupKind, type MemberRole } from '../../entities/index.ts';
import { authorize, can } from '../../policies/index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { notFound, validationFailed } from '../errors.ts';
import { byNameOrId, isUuid } from '../ids.ts';
import { loadVisibleGroup } from './groups.ts';
import { removeMember } from './members.ts';

/**
 * A group's members as one list, the way CKAN's group dicts carry them (`users`): read whole, and written
 * whole by organization_create/update, next to the one-member-at-a-time functions of members.ts.
 */

export interface RosterEntry {
  userId: string;
  username: string;
  displayName: string | null;
  role: MemberRole;
}

/** The active members, by username, for a caller who may read them (members and sysadmins); else null. */
export async function memberRoster(ctx: DomainContext, actor: Actor, kind: GroupKind, nameOrId: string): Promise<RosterEntry[] | null> {
  const { group, subject } = await loadVisibleGroup(ctx, actor, kind, nameOrId);
  if (!can(actor, 'group:read-members', subject)) return null;
  const rows = await ctx.em.find(
    Membership,
    { group: group.id, user: { state: 'active' } },
    { populate: ['user'], orderBy: { user: { username: 'asc' } } },
  );
  return rows.map((m) => {
    const user = m.user as User;
    return { userId: user.id, username: user.username, displayName: user.displayName ?? null, role: m.role };
  });
}

/**
 * Makes `members` the group's whole member list: others lose their membership, the listed get their role.
 * A user named that no active account has is skipped, as CKAN skips it (a dump names the other site's
 * users). Call it inside the transaction that also writes the group, so either both happen or neither.
 */
export async function replaceMembers(
  ctx: DomainContext,
  actor: Actor,
  kind: GroupKind,
  nameOrId: string,
  members: Array<{ user: string; role: MemberRole }>,
) {
  const { group, subject } = await loadVisibleGroup(ctx, actor, kind, nameOrId);
  authorize(actor, 'group:manage-members', subject);
  const refs = members.map((m) => m.user);
  const ids = refs.filter(isUuid);
  const users = refs.length
    ? await ctx.em.find(User, { state: 'active', $or: [{ username: { $in: refs } }, ...(ids.length ? [{ id: { $in: ids } }] : [])] })
    : [];
  const roleOf = new Map<string, MemberRole>();
  for (const m of members) {
    const user = users.find((u) => u.id === m.user || u.username === m.user);
    if (user) roleOf.set(user.id, m.role);
  }
  const keep = [...roleOf.keys()];
  // Only active users' memberships are replaced: a list read back from a show never names a soft-deleted
  // member, whose memberships wait for their restore.
  await ctx.em.execute(
    `delete from memberships m where m.group_id = ?${keep.length ? ` and m.user_id not in (${keep.map(() => '?').join(', ')})` : ''}
        and exists (select 1 from users u where u.id = m.user_id and u.state = 'active')`,
    [group.id, ...keep],
  );
  for (const [userId, role] of roleOf) {
    await ctx.em.execute(
      `insert into memberships (group_id, user_id, role, created_at) values (?, ?, ?, now())
       on conflict (group_id, user_id) do update set role = excluded.role`,
      [group.id, userId, role],
    );
  }
}

/**
 * Which kind a group reference names, for CKAN's member actions that take either. A name an
 * organization and a category share is refused: only its id tells them apart. The member functions
 * then load the group under their own rules.
 */
export async function groupKindOf(ctx: DomainContext, actor: Actor, nameOrId: string, path = 'id'): Promise<GroupKind> {
  // A deleted group is only a sysadmin's to find, so it never makes another one's name ambiguous.
  const found = await ctx.em.find(
    Group,
    { ...byNameOrId(nameOrId), ...(actor.sysadmin ? {} : { state: 'active' as const }) },
    { fields: ['kind'] },
  );
  if (found.length === 0) throw notFound('Group');
  if (found.length > 1) {
    throw validationFailed([{ path, message: 'an organization and a group have this name: give the id of the one you mean' }]);
  }
  return found[0].kind;
}

/**
 * removeMember with the user named by username or id (CKAN names them either way). The group's rule is
 * asked before anything about the user is told: an unknown user is the same 404 as a non-member.
 */
export async function removeMemberByRef(ctx: DomainContext, actor: Actor, kind: GroupKind, nameOrId: string, userRef: string) {
  const user = isUuid(userRef) ? null : await ctx.em.findOne(User, { username: userRef }, { fields: ['id'] });
  await removeMember(ctx, actor, kind, nameOrId, user?.id ?? userRef);
}
