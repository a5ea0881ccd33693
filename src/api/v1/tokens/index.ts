import { z } from 'zod';
import { createToken, listTokens, revokeToken } from '../../../domain/auth/api-tokens.ts';
import { defineRoute } from '../../../http/route.ts';
import { listOf, paging } from '../../../http/schemas.ts';

const TokenRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    createdAt: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
    lastUsedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'ApiToken' });

export const CreateTokenBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  expiresInDays: z.number().int('must be a whole number of days').min(1).max(365).default(90),
});

export const tokenRoutes = [
  defineRoute({
    method: 'post',
    path: '/api-tokens',
    links: { 'DELETE /api-tokens/{id}': { id: '$response.body#/id' } },
    summary: 'Create an API token; the secret `token` is in this response only',
    tag: 'api-tokens',
    access: 'user',
    body: CreateTokenBody,
    status: 201,
    response: TokenRecord.extend({ token: z.string().describe('The secret; shown once') }),
    handle: ({ domain, actor, body }) => createToken(domain, actor, body),
  }),
  defineRoute({
    method: 'get',
    path: '/api-tokens',
    summary: 'List your tokens (not revoked)',
    tag: 'api-tokens',
    access: 'user',
    query: z.object(paging),
    response: listOf(TokenRecord),
    handle: ({ domain, actor, query }) => listTokens(domain, actor, query),
  }),
  defineRoute({
    method: 'delete',
    path: '/api-tokens/{id}',
    summary: 'Revoke one of your tokens; it fails from the next request on',
    tag: 'api-tokens',
    access: 'user',
    params: z.object({ id: z.string().min(1).max(100) }),
    handle: ({ domain, actor, params }) => revokeToken(domain, actor, params.id),
  }),
];
