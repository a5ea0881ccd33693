import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { ApiToken, Session, User } from '../../entities/index.ts';
import { authorize } from '../../policies/index.ts';
import type { Actor } from '../actor.ts';
import { hashPassword } from '../auth/passwords.ts';
import type { DomainContext } from '../context.ts';
import { conflict, DomainError, notFound, registrationDisabled, tooManyRequests } from '../errors.ts';
import { FailureCounter } from '../auth/failure-counter.ts';
import { isUuid } from '../ids.ts';
import { page, type PageRequest } from '../pagination.ts';
import { likePattern } from '../like-pattern.ts';
import { presentUser, presentUserSummary } from './present.ts';

export interface NewUser {
  username: string;
  email: string;
  password: string;
  displayName?: string | null;
  sysadmin?: boolean;
}

/** Creates an account. A taken username or email is a 409 naming the field. */
export async function createUser(ctx: Pick<DomainContext, 'em'>, input: NewUser): Promise<User> {
  const email = input.email.toLowerCase();
  const taken = await ctx.em.find(User, { $or: [{ username: input.username }, { email }] });
  const errors = [
    ...(taken.some((u) => u.username === input.username) ? [{ path: 'username', message: 'is already taken' }] : []),
    ...(taken.some((u) => u.email === email) ? [{ path: 'email', message: 'is already registered' }] : []),
  ];
  if (errors.length > 0) throw conflict('An account with these details already exists.', errors);

  const user = ctx.em.create(User, {
    username: input.username,
    email,
    displayName: input.displayName ?? null,
    passwordHash: await hashPassword(input.password),
    sysadmin: input.sysadmin ?? false,
  });
  try {
    await ctx.em.flush();
  } catch (err) {
    // A concurrent registration won the race between our check and the insert.
    if (err instanceof UniqueConstraintViolationException) throw conflict('An account with these details already exists.');
    throw err;
  }
  return user;
}

/**
 * POST /auth/register. A taken username or email must be named (the client has to pick another), which
 * tells whether an account exists: such refusals are counted per client IP, like failed logins, and
 * past REGISTRATION_MAX_CONFLICTS_PER_IP in a window the client gets 429 instead of an answer.
 */
export async function registerUser(ctx: DomainContext, input: Omit<NewUser, 'sysadmin'>, clientIp: string) {
  if (!ctx.config.site.registrationEnabled) {
    throw registrationDisabled();
  }
  const { windowSeconds, maxConflictsPerIp } = ctx.config.auth.registrationThrottle;
  const refusals = new FailureCounter(ctx.em, windowSeconds);
  const key = `register:${clientIp}`;
  const count = await refusals.read(key);
  if (count && count.failures >= maxConflictsPerIp) {
    throw tooManyRequests(
      'registration_rate_limited',
      'Too many registrations with taken names or emails; try again later.',
      count.retry_after,
    );
  }
  try {
    return presentUser(await createUser(ctx, { ...input, sysadmin: false }), { withEmail: true });
  } catch (err) {
    if (err instanceof DomainError && err.code === 'conflict') await refusals.increment(key);
    throw err;
  }
}

/** Creates the sysadmin named by ALMANAC_ADMIN_* when absent; an existing account is left as it is. */
export async function ensureInitialAdmin(ctx: Pick<DomainContext, 'em' | 'config' | 'log'>) {
  const admin = ctx.config.initialAdmin;
  if (!admin) return;
  if (await ctx.em.count(User, { username: admin.username })) return;
  await createUser(ctx, { ...admin, sysadmin: true });
  ctx.log.info({ username: admin.username }, 'initial sysadmin created');
}

export async function getMe(ctx: DomainContext, actor: Actor) {
  authorize(actor, 'self:manage');
  return presentUser(await ctx.em.findOneOrFail(User, { id: actor.userId! }), { withEmail: true });
}

export async function searchUsers(ctx: DomainContext, actor: Actor, q: string | undefined, req: PageRequest) {
  authorize(actor, 'user:search');
  const where = {
    state: 'active' as const,
    ...(q ? { $or: [{ username: { $ilike: likePattern(q) } }, { displayName: { $ilike: likePattern(q) } }] } : {}),
  };
  const [rows, count] = await ctx.em.findAndCount(User, where, {
    orderBy: { username: 'asc' },
    offset: req.offset,
    limit: req.limit,
  });
  return page(rows.map(presentUserSummary), count, req);
}

// ---- administration (sysadmin) ----

export async function listUsers(
  ctx: DomainContext,
  actor: Actor,
  filter: { q?: string; state?: 'active' | 'deleted'; sysadmin?: boolean },
  req: PageRequest,
) {
  authorize(actor, 'user:administer');
  const where = {
    ...(filter.state ? { state: filter.state } : {}),
    ...(filter.sysadmin !== undefined ? { sysadmin: filter.sysadmin } : {}),
    ...(filter.q
      ? {
          $or: [
            { username: { $ilike: likePattern(filter.q) } },
            { displayName: { $ilike: likePattern(filter.q) } },
            { email: { $ilike: likePattern(filter.q) } },
          ],
        }
      : {}),
  };
  const [rows, count] = await ctx.em.findAndCount(User, where, {
    orderBy: { createdAt: 'asc', username: 'asc' },
    offset: req.offset,
    limit: req.limit,
  });
  return page(
    rows.map((u) => presentUser(u, { withEmail: true })),
    count,
    req,
  );
}

export async function userStats(ctx: DomainContext, actor: Actor) {
  authorize(actor, 'user:administer');
  const [row] = await ctx.em.getConnection().execute<{ total: string; active: string; deleted: string; sysadmins: string }[]>(
    `select count(*) as total,
            count(*) filter (where state = 'active') as active,
            count(*) filter (where state = 'deleted') as deleted,
            count(*) filter (where sysadmin and state = 'active') as sysadmins
       from users`,
  );
  return {
    total: Number(row.total),
    active: Number(row.active),
    deleted: Number(row.deleted),
    sysadmins: Number(row.sysadmins),
  };
}

export async function adminCreateUser(ctx: DomainContext, actor: Actor, input: NewUser) {
  authorize(actor, 'user:administer');
  return presentUser(await createUser(ctx, input), { withEmail: true });
}

export interface UserPatch {
  email?: string;
  displayName?: string | null;
  password?: string;
  sysadmin?: boolean;
}

export async function adminUpdateUser(ctx: DomainContext, actor: Actor, userId: string, patch: UserPatch) {
  authorize(actor, 'user:administer');
  // Hashing is slow; do it before the transaction so no lock is held meanwhile.
  const passwordHash = patch.password !== undefined ? await hashPassword(patch.password) : undefined;
  const user = await emailUnique(
    ctx.em.transactional(async (em) => {
      const user = await loadUser({ ...ctx, em }, userId);
      if (patch.sysadmin === false && user.sysadmin) await assertAnotherSysadmin({ ...ctx, em }, user);
      if (patch.email !== undefined) {
        const email = patch.email.toLowerCase();
        if (email !== user.email && (await em.count(User, { email }))) {
          throw conflict('Another account uses this email.', [{ path: 'email', message: 'is already registered' }]);
        }
        user.email = email;
      }
      if (patch.displayName !== undefined) user.displayName = patch.displayName;
      if (patch.sysadmin !== undefined) user.sysadmin = patch.sysadmin;
      if (passwordHash !== undefined) {
        user.passwordHash = passwordHash;
        // A new password ends every session that knew the old one; tokens are kept (they are separate credentials).
        await em.nativeDelete(Session, { user: user.id });
      }
      return user;
    }),
  );
  // After the commit: this process's cached lookups must see the new flag, or the ended sessions, at once.
  if (patch.sysadmin !== undefined || passwordHash !== undefined) ctx.credentials?.forgetUser(user.id);
  return presentUser(user, { withEmail: true });
}

/** A concurrent change that took the email between our check and the write is the same 409. */
async function emailUnique<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) {
      throw conflict('Another account uses this email.', [{ path: 'email', message: 'is already registered' }]);
    }
    throw err;
  }
}

/** Soft delete: the account stops working on the very next request, its sessions and tokens are gone for good. */
export async function softDeleteUser(ctx: DomainContext, actor: Actor, userId: string) {
  authorize(actor, 'user:administer');
  await ctx.em.transactional(async (em) => {
    const user = await loadUser({ ...ctx, em }, userId);
    if (user.state === 'deleted') return;
    if (user.sysadmin) await assertAnotherSysadmin({ ...ctx, em }, user);
    user.state = 'deleted';
    user.deletedAt = new Date();
    await em.nativeDelete(Session, { user: user.id });
    await em.nativeUpdate(ApiToken, { user: user.id, revokedAt: null }, { revokedAt: new Date() });
  });
  ctx.credentials?.forgetUser(userId);
}

export async function restoreUser(ctx: DomainContext, actor: Actor, userId: string) {
  authorize(actor, 'user:administer');
  const user = await loadUser(ctx, userId);
  user.state = 'active';
  user.deletedAt = null;
  await ctx.em.flush();
  return presentUser(user, { withEmail: true });
}

/** Permanent removal of a soft-deleted account with its sessions, tokens and memberships (FK cascade). */
export async function purgeUser(ctx: DomainContext, actor: Actor, userId: string) {
  authorize(actor, 'user:administer');
  const user = await loadUser(ctx, userId);
  if (user.state !== 'deleted') throw conflict('Only a deleted user can be purged; delete the user first.');
  await ctx.em.nativeDelete(User, { id: user.id });
  ctx.credentials?.forgetUser(user.id);
}

async function loadUser(ctx: DomainContext, userId: string) {
  const user = isUuid(userId) ? await ctx.em.findOne(User, { id: userId }) : null;
  if (!user) throw notFound('User');
  return user;
}

/** Any fixed number, shared by every transaction that may take away an active sysadmin. */
const SYSADMIN_REMOVAL_LOCK = 0x616c6d01;

/**
 * The site must keep one active sysadmin, or nobody could administer it again. Call it inside the
 * transaction that demotes or deletes `user`: the lock, held until that transaction ends, makes two
 * sysadmins removing each other at once take turns, so the second one sees the first one's change.
 */
async function assertAnotherSysadmin(ctx: DomainContext, user: User) {
  await ctx.em.execute('select pg_advisory_xact_lock(?)', [SYSADMIN_REMOVAL_LOCK]);
  const others = await ctx.em.count(User, { sysadmin: true, state: 'active', id: { $ne: user.id } });
  if (others === 0) throw conflict('This is the last active sysadmin; make another user sysadmin first.');
}
