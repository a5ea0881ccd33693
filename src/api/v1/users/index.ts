import { z } from 'zod';
import { myOrganizations } from '../../../domain/groups/groups.ts';
import { getMe, searchUsers } from '../../../domain/users/users.ts';
import { defineRoute } from '../../../http/route.ts';
import { GroupRecord, listOf, paging, UserRecord, UserSummary } from '../../../http/schemas.ts';

export const userRoutes = [
  defineRoute({
    method: 'get',
    path: '/users/me',
    summary: 'The current user',
    tag: 'users',
    access: 'user',
    response: UserRecord,
    handle: ({ domain, actor }) => getMe(domain, actor),
  }),
  defineRoute({
    method: 'get',
    path: '/users/me/organizations',
    summary: "The current user's organizations with their role in each",
    tag: 'users',
    access: 'user',
    query: z.object(paging),
    response: listOf(GroupRecord.extend({ role: z.enum(['member', 'editor', 'admin']) })),
    handle: ({ domain, actor, query }) => myOrganizations(domain, actor, query),
  }),
  defineRoute({
    method: 'get',
    path: '/users',
    summary: 'Search active users by username or display name (for member pickers; no emails)',
    tag: 'users',
    access: 'user',
    query: z.object({ q: z.string().trim().max(200).optional(), ...paging }),
    response: listOf(UserSummary),
    handle: ({ domain, actor, query }) => searchUsers(domain, actor, query.q, query),
  }),
];
