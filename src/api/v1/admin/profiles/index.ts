import { z } from 'zod';
import { deleteProfile, getProfile, listProfiles, putProfile } from '../../../../domain/metadata/profiles.ts';
import { defineRoute } from '../../../../http/route.ts';
import { listOf } from '../../../../http/schemas.ts';
import { ProfileBody, ProfileRecord } from './schema.ts';

const orgParams = z.object({ nameOrId: z.string().min(1).max(200) });

/** The metadata profiles of the site and of organizations (issue 28 §1): sysadmins only. */
export const adminProfileRoutes = [
  defineRoute({
    method: 'get',
    path: '/admin/profiles',
    tag: 'admin',
    access: 'sysadmin',
    summary: 'The metadata profiles defined: the site’s and each organization’s',
    response: listOf(ProfileRecord),
    handle: ({ domain, actor }) => listProfiles(domain, actor),
  }),
  defineRoute({
    method: 'get',
    path: '/admin/profiles/site',
    tag: 'admin',
    access: 'sysadmin',
    summary: 'The site’s metadata profile: the extra fields of every dataset and resource',
    response: ProfileRecord,
    handle: ({ domain, actor }) => getProfile(domain, actor, null),
  }),
  defineRoute({
    method: 'put',
    path: '/admin/profiles/site',
    tag: 'admin',
    access: 'sysadmin',
    summary: 'Define the site’s profile; stored values of removed or narrowed fields are kept',
    alsoSucceeds: { 201: 'Created' },
    problems: ['conflict'],
    body: ProfileBody,
    response: ProfileRecord,
    handle: async ({ domain, actor, body, ctx }) => {
      const { created, profile } = await putProfile(domain, actor, null, body);
      if (created) ctx.state.status = 201;
      return profile;
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/admin/profiles/site',
    tag: 'admin',
    access: 'sysadmin',
    summary: 'Remove the site’s profile; stored values are kept',
    handle: ({ domain, actor }) => deleteProfile(domain, actor, null),
  }),
  defineRoute({
    method: 'get',
    path: '/admin/profiles/organizations/{nameOrId}',
    tag: 'admin',
    access: 'sysadmin',
    summary: 'An organization’s metadata profile: fields its datasets get beyond the site’s',
    params: orgParams,
    response: ProfileRecord,
    handle: ({ domain, actor, params }) => getProfile(domain, actor, params.nameOrId),
  }),
  defineRoute({
    method: 'put',
    path: '/admin/profiles/organizations/{nameOrId}',
    tag: 'admin',
    access: 'sysadmin',
    summary: 'Define an organization’s profile; a field name the site profile uses is refused',
    alsoSucceeds: { 201: 'Created' },
    problems: ['conflict'],
    params: orgParams,
    body: ProfileBody,
    response: ProfileRecord,
    handle: async ({ domain, actor, params, body, ctx }) => {
      const { created, profile } = await putProfile(domain, actor, params.nameOrId, body);
      if (created) ctx.state.status = 201;
      return profile;
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/admin/profiles/organizations/{nameOrId}',
    tag: 'admin',
    access: 'sysadmin',
    summary: 'Remove an organization’s profile; stored values are kept',
    params: orgParams,
    handle: ({ domain, actor, params }) => deleteProfile(domain, actor, params.nameOrId),
  }),
];
