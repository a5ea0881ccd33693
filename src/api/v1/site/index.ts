import { z } from 'zod';
import { siteSettings } from '../../../domain/site.ts';
import { defineRoute } from '../../../http/route.ts';

const SiteSettings = z
  .object({
    siteName: z.string(),
    registrationEnabled: z.boolean(),
    version: z.string(),
    features: z.object({ semanticSearch: z.boolean(), mcp: z.boolean() }),
  })
  .meta({ id: 'SiteSettings' });

export const siteRoutes = [
  defineRoute({
    method: 'get',
    path: '/site/settings',
    summary: 'Public site settings: name, registration, version, features',
    tag: 'site',
    access: 'public',
    noPolicy: 'public settings of the site, the same for everyone',
    response: SiteSettings,
    handle: async ({ domain }) => siteSettings(domain.config),
  }),
];
