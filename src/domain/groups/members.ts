import { Membership, User, type GroupKind, type MemberRole } from '../../entities/index.ts';
import { authorize } from '../../policies/index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { notFound, validationFailed } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { page, type PageRequest } from '../pagination.ts';
import { loadVisibleGroup } from './groups.ts';

const presentMember = (user: User, role: MemberRole) => ({
  userId: user.id,
  username: user.username,
  displayName: user.displayName ?? null,
  role,
});

export async function listMembers(ctx: DomainContext, actor: Actor, kind: GroupKind, nameOrId: string, req: PageRequest) {
  const { group, subject } = await loadVisibleGroup(ctx, actor, kind, nameOrId);
  authorize(actor, 'group:read-members', subject);
  const [rows, count] = await ctx.em.findAndCount(
    Membership,
    { group: group.id, user: { state: 'active' } },
    { populate: ['user'], orderBy: { user: { username: 'asc' } }, offset: req.offset, limit: req.limit },
  );
  return page(
    rows.map((m) => presentMember(m.user as User, m.role)),
    count,
    req,
  );
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

  // One atomic upsert: two concurrent first adds of the same user cannot collide on the primary key. In a
  // transaction of its own, even as one statement: the history's triggers read who made it from there.
  const [row] = await ctx.em.transactional((tx) =>
    tx.execute<{ created: boolean }[]>(
      `insert into memberships (group_id, user_id, role, created_at) values (?, ?, ?, now())
       on conflict (group_id, user_id) do update set role = excluded.role
       returning (xmax = 0) as created`,
      [group.id, user.id, input.role],
    ),
  );
  return {
    created: row.created,
    member: presentMember(user, input.role),
  };
}

export async function removeMember(ctx: DomainContext, actor: Actor, kind: GroupKind, nameOrId: string, userId: string) {
  const { group, subject } = await loadVisibleGroup(ctx, actor, kind, nameOrId);
  authorize(actor, 'group:manage-members', subject);
  const removed = isUuid(userId) ? await ctx.em.transactional((tx) => tx.nativeDelete(Membership, { group: group.id, user: userId })) : 0;
  if (removed === 0) throw notFound('Member');
}
