import { z } from 'zod';
import { linkCheckStats, listLinkChecks, requestLinkCheck } from '../../../../domain/admin/link-health.ts';
import { LINK_CHECK_STATUSES } from '../../../../entities/index.ts';
import { defineRoute } from '../../../../http/route.ts';
import { Accepted, listOf, paging } from '../../../../http/schemas.ts';

const LinkCheckRecord = z
  .object({
    resourceId: z.uuid(),
    packageId: z.uuid(),
    url: z.string().describe('The URL that was checked'),
    status: z.enum(LINK_CHECK_STATUSES),
    httpStatus: z.number().int().nullable().describe('The final status after redirects; null when no answer came'),
    checkedAt: z.iso.datetime(),
    latencyMs: z.number().int(),
    error: z.string().nullable().describe('Why the link is not ok'),
  })
  .meta({ id: 'LinkCheck', description: 'The latest health check of a link resource' });

const LinkCheckStats = z
  .object({
    total: z.number().int(),
    ok: z.number().int(),
    broken: z.number().int(),
    timeout: z.number().int(),
    lastCheckedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'LinkCheckStats' });

export const adminHealthRoutes = [
  defineRoute({
    method: 'get',
    path: '/admin/health',
    tag: 'admin',
    access: 'sysadmin',
    summary: 'Link check results, one per link resource, most recently checked first; filter by status',
    query: z.object({ status: z.enum(LINK_CHECK_STATUSES).optional(), ...paging }),
    response: listOf(LinkCheckRecord),
    handle: ({ domain, actor, query }) => listLinkChecks(domain, actor, { status: query.status }, query),
  }),
  defineRoute({
    method: 'get',
    path: '/admin/health/stats',
    tag: 'admin',
    access: 'sysadmin',
    summary: 'Link check counts by status, and when the last check ran',
    response: LinkCheckStats,
    handle: ({ domain, actor }) => linkCheckStats(domain, actor),
  }),
  defineRoute({
    method: 'post',
    path: '/admin/health/check',
    problems: ['jobs_unavailable'],
    tag: 'admin',
    access: 'sysadmin',
    status: 202,
    summary: 'Check every link now, as the workflow link-check (a check already running is joined)',
    response: Accepted,
    handle: ({ domain, actor }) => requestLinkCheck(domain, actor),
  }),
];
