import { z } from 'zod';
import type { GroupKind } from '../../../entities/index.ts';
import {
  createGroup,
  getGroup,
  listGroups,
  purgeCategory,
  replaceGroup,
  requestOrganizationPurge,
  restoreGroup,
  softDeleteGroup,
} from '../../../domain/groups/groups.ts';
import { listMembers, removeMember, upsertMember } from '../../../domain/groups/members.ts';
import { defineRoute, type Route } from '../../../http/route.ts';
import { Accepted, GroupRecord, listOf, MemberRecord, nameOrIdParams, paging, slug } from '../../../http/schemas.ts';

/** The writable fields of an organization or a category; the CKAN actions validate by it too. */
export const GroupBody = z.strictObject({
  name: slug,
  title: z.string().trim().max(300).nullish(),
  description: z.string().max(20_000).nullish(),
  imageUrl: z
    .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
    .max(2000)
    .nullish(),
});

const MemberBody = z.strictObject({
  user: z.string().min(1).max(200).describe('User id or username'),
  role: z.enum(['admin', 'editor', 'member']),
});

const ListQuery = z.object({
  q: z.string().trim().max(200).optional(),
  state: z.enum(['active', 'deleted']).optional().describe('deleted: sysadmin only'),
  ...paging,
});

/**
 * Organizations (`/organizations`) and categories (`/groups`) have the same endpoints over the same
 * rules; only the purge differs: an organization purge is a Temporal workflow, a category purge is
 * synchronous.
 */
export function groupFamilyRoutes(kind: GroupKind, base: string, tag: string): Route[] {
  const one = `${base}/{nameOrId}`;
  const label = kind === 'organization' ? 'organization' : 'category';
  const aLabel = kind === 'organization' ? 'an organization' : 'a category';
  const adminRole = kind === 'organization' ? 'Org admin' : 'Category admin';
  return [
    defineRoute({
      method: 'get',
      path: base,
      problems: ['forbidden'],
      tag,
      access: 'public',
      summary: `List ${label === 'category' ? 'categories' : 'organizations'}, by name`,
      query: ListQuery,
      response: listOf(GroupRecord),
      handle: ({ domain, actor, query }) => listGroups(domain, actor, kind, query, query),
    }),
    defineRoute({
      method: 'post',
      path: base,
      links: {
        [`GET ${one}`]: { nameOrId: '$response.body#/id' },
        [`PUT ${one}`]: { nameOrId: '$response.body#/id' },
        [`DELETE ${one}`]: { nameOrId: '$response.body#/id' },
        [`GET ${one}/members`]: { nameOrId: '$response.body#/id' },
        [`POST ${one}/members`]: { nameOrId: '$response.body#/id' },
      },
      problems: ['conflict'],
      tag,
      access: 'sysadmin',
      status: 201,
      summary: `Create ${aLabel} (sysadmin)`,
      body: GroupBody,
      response: GroupRecord,
      handle: ({ domain, actor, body }) => createGroup(domain, actor, kind, body),
    }),
    defineRoute({
      method: 'get',
      path: one,
      tag,
      access: 'public',
      summary: `Detail of ${aLabel}`,
      params: nameOrIdParams,
      response: GroupRecord,
      handle: ({ domain, actor, params }) => getGroup(domain, actor, kind, params.nameOrId),
    }),
    defineRoute({
      method: 'put',
      path: one,
      problems: ['conflict'],
      tag,
      access: 'user',
      summary: `Replace the fields of ${aLabel} (${adminRole})`,
      params: nameOrIdParams,
      body: GroupBody,
      response: GroupRecord,
      handle: ({ domain, actor, params, body }) => replaceGroup(domain, actor, kind, params.nameOrId, body),
    }),
    defineRoute({
      method: 'delete',
      path: one,
      tag,
      access: 'user',
      summary: `Soft-delete ${aLabel} (${adminRole})`,
      params: nameOrIdParams,
      handle: ({ domain, actor, params }) => softDeleteGroup(domain, actor, kind, params.nameOrId),
    }),
    defineRoute({
      method: 'post',
      path: `${one}/restore`,
      // An organization whose purge is running cannot come back; asking Temporal needs it reachable.
      problems: kind === 'organization' ? ['conflict', 'jobs_unavailable'] : [],
      tag,
      access: 'sysadmin',
      summary: `Restore a deleted ${label} (sysadmin)`,
      params: nameOrIdParams,
      response: GroupRecord,
      handle: ({ domain, actor, params }) => restoreGroup(domain, actor, kind, params.nameOrId),
    }),
    kind === 'organization'
      ? defineRoute({
          method: 'post',
          path: `${one}/purge`,
          tag,
          access: 'sysadmin',
          status: 202,
          summary: 'Permanently delete a deleted organization; runs as the Temporal workflow purge-org-<id>',
          problems: ['conflict', 'jobs_unavailable'],
          params: nameOrIdParams,
          response: Accepted,
          handle: ({ domain, actor, params }) => requestOrganizationPurge(domain, actor, params.nameOrId),
        })
      : defineRoute({
          method: 'post',
          path: `${one}/purge`,
          tag,
          access: 'sysadmin',
          summary: 'Permanently delete a deleted category',
          problems: ['conflict'],
          params: nameOrIdParams,
          handle: ({ domain, actor, params }) => purgeCategory(domain, actor, params.nameOrId),
        }),
    defineRoute({
      method: 'get',
      path: `${one}/members`,
      tag,
      access: 'user',
      summary: `List members (${label} member)`,
      params: nameOrIdParams,
      query: z.object(paging),
      response: listOf(MemberRecord),
      handle: ({ domain, actor, params, query }) => listMembers(domain, actor, kind, params.nameOrId, query),
    }),
    defineRoute({
      method: 'post',
      path: `${one}/members`,
      links: {
        [`DELETE ${one}/members/{userId}`]: { nameOrId: '$request.path.nameOrId', userId: '$response.body#/userId' },
      },
      tag,
      access: 'user',
      summary: `Add a member or change their role (${adminRole}); 201 when added, 200 when changed`,
      alsoSucceeds: { 201: 'Added' },
      params: nameOrIdParams,
      body: MemberBody,
      response: MemberRecord,
      async handle({ domain, actor, params, body, ctx }) {
        const { created, member } = await upsertMember(domain, actor, kind, params.nameOrId, body);
        if (created) ctx.state.status = 201;
        return member;
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${one}/members/{userId}`,
      tag,
      access: 'user',
      summary: `Remove a member (${adminRole})`,
      params: nameOrIdParams.extend({ userId: z.string().min(1).max(100) }),
      handle: ({ domain, actor, params }) => removeMember(domain, actor, kind, params.nameOrId, params.userId),
    }),
  ];
}
