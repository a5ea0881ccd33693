import { Group, Membership, User, type MemberRole } from '../../entities/index.ts';
import { authorize, hasRole } from '../../policies/index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { presentGroupsWithCounts } from './package-counts.ts';

/**
 * The active organizations where a user holds at least `minRole`, with that role: a sysadmin holds every
 * organization as admin (CKAN's organization_list_for_user). Memberships are private to the user and
 * sysadmins, so asking about someone else is refused before the user is even looked up.
 */
export async function organizationsForUser(ctx: DomainContext, actor: Actor, userRef: string | undefined, minRole: MemberRole) {
  if (userRef === undefined) {
    if (actor.userId === null) {
      authorize(actor, 'group:list');
      return [];
    }
    authorize(actor, 'self:manage');
    return listFor(ctx, actor, { id: actor.userId, sysadmin: actor.sysadmin }, minRole);
  }
  const user = await ctx.em.findOne(User, { ...(isUuid(userRef) ? { id: userRef } : { username: userRef }), state: 'active' as const });
  authorize(actor, 'user:read-private', { ownerId: user?.id ?? '' });
  if (!user) throw notFound('User');
  return listFor(ctx, actor, user, minRole);
}

async function listFor(ctx: DomainContext, actor: Actor, user: { id: string; sysadmin: boolean }, minRole: MemberRole) {
  const withRoles: Array<{ group: Group; role: MemberRole }> = user.sysadmin
    ? (await ctx.em.find(Group, { kind: 'organization', state: 'active' }, { orderBy: { name: 'asc' } })).map((group) => ({
        group,
        role: 'admin' as const,
      }))
    : (
        await ctx.em.find(
          Membership,
          { user: user.id, group: { kind: 'organization', state: 'active' } },
          { populate: ['group'], orderBy: { group: { name: 'asc' } } },
        )
      )
        .filter((m) => hasRole(m.role, minRole))
        .map((m) => ({ group: m.group as Group, role: m.role }));
  // Counts are what the caller may see, as everywhere else.
  const records = await presentGroupsWithCounts(
    ctx,
    actor,
    withRoles.map((r) => r.group),
  );
  return records.map((record, i) => ({ ...record, role: withRoles[i].role }));
}
