import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { User } from './user.ts';

/** A bearer token. Only the SHA-256 of the secret is stored; the secret is shown once. */
export const ApiToken = defineEntity({
  name: 'ApiToken',
  tableName: 'api_tokens',
  properties: {
    id: p.string().length(40).primary(),
    user: () => p.manyToOne(User).deleteRule('cascade').index(),
    name: p.string().length(200),
    secretHash: p.string().length(64).unique().hidden(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});
export type ApiToken = InferEntity<typeof ApiToken>;
