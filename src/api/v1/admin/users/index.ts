import { z } from 'zod';
import {
  adminCreateUser,
  adminUpdateUser,
  listUsers,
  purgeUser,
  restoreUser,
  softDeleteUser,
  userStats,
} from '../../../../domain/users/users.ts';
import { defineRoute } from '../../../../http/route.ts';
import { displayName, email, flag, listOf, paging, password, UserRecord, username } from '../../../../http/schemas.ts';

const userIdParams = z.object({ userId: z.string().min(1).max(100) });

const UserStats = z
  .object({ total: z.number().int(), active: z.number().int(), deleted: z.number().int(), sysadmins: z.number().int() })
  .meta({ id: 'UserStats' });

export const adminUserRoutes = [
  defineRoute({
    method: 'get',
    path: '/admin/users',
    tag: 'admin',
    access: 'sysadmin',
    summary: 'List users with emails; filter by q, state, sysadmin',
    query: z.object({
      q: z.string().trim().max(200).optional(),
      state: z.enum(['active', 'deleted']).optional(),
      sysadmin: flag.optional(),
      ...paging,
    }),
    response: listOf(UserRecord),
    handle: ({ domain, actor, query }) => listUsers(domain, actor, query, query),
  }),
  defineRoute({
    method: 'get',
    path: '/admin/users/stats',
    tag: 'admin',
    access: 'sysadmin',
    summary: 'User counts',
    response: UserStats,
    handle: ({ domain, actor }) => userStats(domain, actor),
  }),
  defineRoute({
    method: 'post',
    path: '/admin/users',
    links: {
      'PATCH /admin/users/{userId}': { userId: '$response.body#/id' },
      'DELETE /admin/users/{userId}': { userId: '$response.body#/id' },
    },
    problems: ['conflict'],
    tag: 'admin',
    access: 'sysadmin',
    status: 201,
    summary: 'Create a user',
    body: z.strictObject({ username, email, password, displayName: displayName.optional(), sysadmin: z.boolean().optional() }),
    response: UserRecord,
    handle: ({ domain, actor, body }) => adminCreateUser(domain, actor, body),
  }),
  defineRoute({
    method: 'patch',
    path: '/admin/users/{userId}',
    problems: ['conflict'],
    tag: 'admin',
    access: 'sysadmin',
    summary: 'Update a user: email, display name, password (ends their sessions), sysadmin flag',
    params: userIdParams,
    body: z.strictObject({
      email: email.optional(),
      displayName: displayName.nullable().optional(),
      password: password.optional(),
      sysadmin: z.boolean().optional(),
    }),
    response: UserRecord,
    handle: ({ domain, actor, params, body }) => adminUpdateUser(domain, actor, params.userId, body),
  }),
  defineRoute({
    method: 'delete',
    path: '/admin/users/{userId}',
    links: {
      'POST /admin/users/{userId}/restore': { userId: '$request.path.userId' },
      'POST /admin/users/{userId}/purge': { userId: '$request.path.userId' },
    },
    problems: ['conflict'],
    tag: 'admin',
    access: 'sysadmin',
    summary: 'Soft-delete a user; their sessions and tokens stop working at once',
    params: userIdParams,
    handle: ({ domain, actor, params }) => softDeleteUser(domain, actor, params.userId),
  }),
  defineRoute({
    method: 'post',
    path: '/admin/users/{userId}/restore',
    tag: 'admin',
    access: 'sysadmin',
    summary: 'Restore a deleted user (their old sessions and tokens stay revoked)',
    params: userIdParams,
    response: UserRecord,
    handle: ({ domain, actor, params }) => restoreUser(domain, actor, params.userId),
  }),
  defineRoute({
    method: 'post',
    path: '/admin/users/{userId}/purge',
    problems: ['conflict'],
    tag: 'admin',
    access: 'sysadmin',
    summary: 'Permanently delete a deleted user',
    params: userIdParams,
    handle: ({ domain, actor, params }) => purgeUser(domain, actor, params.userId),
  }),
];
