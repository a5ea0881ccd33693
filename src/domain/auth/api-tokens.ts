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
  // This process stops accepting it now; the others on the notification that the commit sent.
  ctx.credentials?.forget(`token:${token.secretHash}`);
}

/** Who is calling: what authentication hands on to authorization. */
export interface Caller {
  id: string;
  sysadmin: boolean;
}

/**
 * The active user behind a bearer secret, or null when it is malformed, unknown, revoked or expired.
 * Answers from this process's credential cache when it can (the token's expiry still holds there).
 */
export async function userForToken(ctx: DomainContext, secret: string): Promise<Caller | null> {
  if (!isWellFormedTokenSecret(secret)) return null;
  const key = `token:${sha256Hex(secret)}` as const;
  let found = await ctx.credentials?.get(key);
  if (!found) {
    const keep = ctx.credentials?.beginLookup();
    const token = await ctx.em.findOne(
      ApiToken,
      { secretHash: sha256Hex(secret), revokedAt: null, expiresAt: { $gt: new Date() } },
      { populate: ['user'] },
    );
    const user = token?.user as User | undefined;
    if (!token || !user || user.state !== 'active') return null;
    found = { userId: user.id, sysadmin: user.sysadmin, expiresAt: token.expiresAt, tokenId: token.id, lastUsedAt: token.lastUsedAt };
    keep?.(key, found);
  }
  // lastUsedAt is advisory; write it at most once a minute per token (and process) to keep reads cheap.
  if (!found.lastUsedAt || Date.now() - found.lastUsedAt.getTime() > 60_000) {
    found.lastUsedAt = new Date();
    await ctx.em.nativeUpdate(ApiToken, { id: found.tokenId! }, { lastUsedAt: found.lastUsedAt });
  }
  return { id: found.userId, sysadmin: found.sysadmin };
}
