import { z } from 'zod';
import { profileJsonSchema } from '../../../domain/metadata/profiles.ts';
import { defineRoute } from '../../../http/route.ts';
import { ProfileJsonSchema } from '../admin/profiles/schema.ts';

/**
 * The profiles as JSON Schema at stable, public URLs (their `$id`): what a client or a harvester checks a
 * dataset's `customFields` against. Only field definitions, the same for every caller.
 */
export const profileRoutes = [
  defineRoute({
    method: 'get',
    path: '/profiles/site/schema.json',
    tag: 'site',
    access: 'public',
    noPolicy: 'the site profile’s field definitions are public, as the form that shows them is',
    summary: 'JSON Schema of the profile fields of datasets and resources (site profile)',
    response: ProfileJsonSchema,
    handle: ({ domain, actor }) => profileJsonSchema(domain, actor, null),
  }),
  defineRoute({
    method: 'get',
    path: '/profiles/organizations/{name}/schema.json',
    tag: 'organizations',
    access: 'public',
    summary: 'JSON Schema of the profile fields of an organization’s datasets: the site’s and its own',
    params: z.object({ name: z.string().min(1).max(200) }),
    response: ProfileJsonSchema,
    handle: ({ domain, actor, params }) => profileJsonSchema(domain, actor, params.name),
  }),
];
