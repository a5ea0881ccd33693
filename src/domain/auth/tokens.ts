import { ApiToken, User } from '../../entities/index.ts';
import { authorize, can } from '../../policies/index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { page, type PageRequest } from '../pagination.ts';
import { generateTokenSecret, isWellFormedTokenSecret, newTokenId, sha256Hex } from './token-format.ts';

export const presentToken = (t: ApiToken) => ({
  id: t.id,
  name: t.name,
  createdAt: t.createdAt.toISOString(),
  expiresAt: t.expiresAt.toISOString(),
  lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
});

export async function createToken(ctx: DomainContext, actor: Actor, input: { name: string; expiresInDays: number }) {
  authorize(actor, 'self:manage');
  const secret = generateTokenSecret();
  const token = ctx.em.create(ApiToken, {
    id: newTokenId(),
    user: actor.userId!,
    name: input.name,
    secretHash: sha256Hex(secret),
    expiresAt: new Date(Date.now() + input.expiresInDays * 86400_000),
  });
  await ctx.em.flush();
  return { ...presentToken(token), token: secret };
}

/** The caller's own tokens that are not revoked, newest first; expired ones stay listed until revoked. */
export async function listTokens(ctx: DomainContext, actor: Actor, req: PageRequest) {
  authorize(actor, 'self:manage');
  const [rows, count] = await ctx.em.findAndCount(
    ApiToken,
    { user: actor.userId!, revokedAt: null },
    { orderBy: { createdAt: 'desc' }, offset: req.offset, limit: req.limit },
  );
  return page(rows.map(presentToken), count, req);
}

export async function revokeToken(ctx: DomainContext, actor: Actor, tokenId: string) {
  authorize(actor, 'self:manage');
  const token = await ctx.em.findOne(ApiToken, { id: tokenId, revokedAt: null });
  // Another user's token is as good as absent: its existence is not the caller's business.
  if (!token || !can(actor, 'token:manage', { ownerId: token.user.id })) throw notFound('Token');
  token.revokedAt = new Date();
  await ctx.em.flush();
}

/** The active user behind a bearer secret, or null when it is malformed, unknown, revoked or expired. */
export async function userForToken(ctx: DomainContext, secret: string): Promise<User | null> {
  if (!isWellFormedTokenSecret(secret)) return null;
  const token = await ctx.em.findOne(
    ApiToken,
    { secretHash: sha256Hex(secret), revokedAt: null, expiresAt: { $gt: new Date() } },
    { populate: ['user'] },
  );
  const user = token?.user as User | undefined;
  if (!token || !user || user.state !== 'active') return null;
  // lastUsedAt is advisory; write it at most once a minute per token to keep reads cheap.
  if (!token.lastUsedAt || Date.now() - token.lastUsedAt.getTime() > 60_000) {
    await ctx.em.nativeUpdate(ApiToken, { id: token.id }, { lastUsedAt: new Date() });
  }
  return user;
}
