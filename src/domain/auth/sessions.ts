import { randomBytes } from 'node:crypto';
import { Session, User } from '../../entities/index.ts';
import type { DomainContext } from '../context.ts';
import { sha256Hex } from './token-format.ts';
import type { Caller } from './api-tokens.ts';

/** Opens a session and returns the cookie secret; only its hash is stored. */
export async function openSession(ctx: DomainContext, user: User): Promise<{ secret: string; expiresAt: Date }> {
  const secret = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + ctx.config.auth.sessionTtlHours * 3600_000);
  ctx.em.create(Session, { user, secretHash: sha256Hex(secret), expiresAt });
  await ctx.em.flush();
  // Each login sweeps that user's expired sessions, so the table does not grow without bound.
  await ctx.em.nativeDelete(Session, { user: user.id, expiresAt: { $lte: new Date() } });
  return { secret, expiresAt };
}

/** The active user behind a session cookie, or null when the session is unknown, expired or its user deleted. */
export async function userForSession(ctx: DomainContext, secret: string): Promise<Caller | null> {
  const key = `session:${sha256Hex(secret)}` as const;
  const cached = await ctx.credentials?.get(key);
  if (cached) return { id: cached.userId, sysadmin: cached.sysadmin };
  const keep = ctx.credentials?.beginLookup();
  const session = await ctx.em.findOne(Session, { secretHash: sha256Hex(secret), expiresAt: { $gt: new Date() } }, { populate: ['user'] });
  const user = session?.user as User | undefined;
  if (!session || !user || user.state !== 'active') return null;
  keep?.(key, { userId: user.id, sysadmin: user.sysadmin, expiresAt: session.expiresAt });
  return { id: user.id, sysadmin: user.sysadmin };
}

export async function closeSession(ctx: DomainContext, secret: string) {
  await ctx.em.nativeDelete(Session, { secretHash: sha256Hex(secret) });
  ctx.credentials?.forget(`session:${sha256Hex(secret)}`);
}
