import { Group, Membership, User, type GroupKind, type MemberRole } from '../../entities/index.ts';
import { authorize } from '../../policies/index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { notFound, validationFailed } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { page, type PageRequest } from '../pagination.ts';
import { loadVisibleGroup } from './groups.ts';

const presentMember = (m: Membership) => {
  const user = m.user as User;
  return { userId: user.id, username: user.username, displayName: user.displayName ?? null, role: m.role };
};

export async function listMembers(ctx: DomainContext, actor: Actor, kind: GroupKind, nameOrId: string, req: PageRequest) {
  const { group, subject } = await loadVisibleGroup(ctx, actor, kind, nameOrId);
  authorize(actor, 'group:read-members', subject);
  const [rows, count] = await ctx.em.findAndCount(
    Membership,
    { group: group.id, user: { state: 'active' } },
    { populate: ['user'], orderBy: { user: { username: 'asc' } }, offset: req.offset, limit: req.limit },
  );
  return page(rows.map(presentMember), count, req);
}

/** Adds a member or changes their role (upsert). `user` is a user id or username. */
export async function upsertMember(
  ctx: DomainContext,
  actor: Actor,
  kind: GroupKind,
  nameOrId: string,
  input: { user: string; role: MemberRole },
) {
  const { group, subject } = await loadVisibleGroup(ctx, actor, kind, nameOrId);
  authorize(actor, 'group:manage-members', subject);
  const user = await ctx.em.findOne(User, {
    ...(isUuid(input.user) ? { id: input.user } : { username: input.user }),
    state: 'active',
  });
  if (!user) throw validationFailed([{ path: 'user', message: 'no active user has this id or username' }]);

  const existing = await ctx.em.findOne(Membership, { group: group.id, user: user.id });
  const membership = existing ?? ctx.em.create(Membership, { group: group as Group, user, role: input.role });
  membership.role = input.role;
  await ctx.em.flush();
  return { created: !existing, member: presentMember(membership) };
}

export async function removeMember(ctx: DomainContext, actor: Actor, kind: GroupKind, nameOrId: string, userId: string) {
  const { group, subject } = await loadVisibleGroup(ctx, actor, kind, nameOrId);
  authorize(actor, 'group:manage-members', subject);
  const removed = isUuid(userId) ? await ctx.em.nativeDelete(Membership, { group: group.id, user: userId }) : 0;
  if (removed === 0) throw notFound('Member');
}
