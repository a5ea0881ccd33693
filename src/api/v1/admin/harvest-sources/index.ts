import { z } from 'zod';
import {
  createHarvestSource,
  deleteHarvestSource,
  getHarvestSource,
  listHarvestRuns,
  listHarvestSources,
  runHarvestSource,
  updateHarvestSource,
} from '../../../../domain/harvest/sources.ts';
import { sourceDefaults, sourceFilters } from '../../../../domain/harvest/source-filters.ts';
import { HARVEST_SOURCE_TYPES } from '../../../../entities/index.ts';
import { defineRoute } from '../../../../http/route.ts';
import { Accepted, flag, listOf, paging } from '../../../../http/schemas.ts';

const idParams = z.object({ id: z.uuid() });

const HarvestRunRecord = z
  .object({
    workflowId: z.string(),
    runId: z.string().describe('The first Temporal run of the workflow (a continue-as-new chain keeps it)'),
    status: z.enum(['running', 'succeeded', 'failed']),
    startedAt: z.iso.datetime(),
    finishedAt: z.iso.datetime().nullable(),
    reason: z.string().nullable().describe('Why a failed run failed'),
    since: z.iso.datetime().nullable().describe('Incremental runs: only records modified at the source since then; null for a full run'),
    pages: z.number().int().describe('Pages of the source read so far'),
    seen: z.number().int().describe('Records read: created + updated + unchanged + failed'),
    created: z.number().int(),
    updated: z.number().int(),
    unchanged: z.number().int(),
    failed: z.number().int(),
    removed: z.number().int().describe('Datasets no longer at the source (soft-deleted only with deleteRemoved)'),
    errors: z
      .array(z.object({ remoteId: z.string(), title: z.string().nullable(), reason: z.string() }))
      .describe('The first 100 records that failed, with their reasons'),
  })
  .meta({ id: 'HarvestRun', description: 'One run of a harvest source; its counts move while it runs' });

const HarvestSourceRecord = z
  .object({
    id: z.uuid(),
    name: z.string(),
    type: z.enum(HARVEST_SOURCE_TYPES),
    url: z.string(),
    organization: z.object({ id: z.uuid(), name: z.string(), title: z.string() }).nullable(),
    deleteRemoved: z.boolean(),
    schedule: z.string().nullable(),
    maxPages: z.number().int(),
    maxRunMinutes: z.number().int(),
    filters: sourceFilters,
    defaults: sourceDefaults,
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    lastRun: HarvestRunRecord.nullable(),
  })
  .meta({ id: 'HarvestSource', description: 'Another catalog that Almanac imports' });

const fields = {
  name: z.string().trim().min(1).max(100),
  type: z.enum(HARVEST_SOURCE_TYPES),
  url: z.string().max(2000).describe('The CKAN site root, the data.json URL, or the DCAT-AP catalog URL (http or https)'),
  organization: z
    .string()
    .min(1)
    .max(200)
    .nullable()
    .describe('Name or id of the organization that receives the datasets: required for dcat-us and dcat-ap; for ckan, those without one'),
  deleteRemoved: z.boolean().describe('Soft-delete the datasets that disappear from the source (otherwise only counted)'),
  schedule: z
    .string()
    .max(100)
    .nullable()
    .describe('"daily", "weekly" or a five-field cron expression (UTC): a Temporal Schedule harvest-schedule-<id>; null for none'),
  maxPages: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .describe('A run stops, failed and saying why, past this many pages of the source (default 10,000)'),
  maxRunMinutes: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60)
    .describe('A run stops, failed and saying why, after this many minutes (default 1,440: a day)'),
  filters: sourceFilters,
  defaults: sourceDefaults,
};

export const adminHarvestSourceRoutes = [
  defineRoute({
    method: 'post',
    path: '/admin/harvest-sources',
    links: {
      'GET /admin/harvest-sources/{id}': { id: '$response.body#/id' },
      'POST /admin/harvest-sources/{id}/run': { id: '$response.body#/id' },
    },
    problems: ['conflict', 'jobs_unavailable'],
    tag: 'admin',
    access: 'sysadmin',
    status: 201,
    summary: 'Add a harvest source (a CKAN site, a DCAT-US data.json, a DCAT-AP catalog), with its schedule if given',
    body: z.strictObject({
      name: fields.name,
      type: fields.type,
      url: fields.url,
      organization: fields.organization.optional(),
      deleteRemoved: fields.deleteRemoved.optional(),
      schedule: fields.schedule.optional(),
      maxPages: fields.maxPages.optional(),
      maxRunMinutes: fields.maxRunMinutes.optional(),
      filters: fields.filters.optional(),
      defaults: fields.defaults.optional(),
    }),
    response: HarvestSourceRecord,
    handle: ({ domain, actor, body }) => createHarvestSource(domain, actor, body),
  }),
  defineRoute({
    method: 'get',
    path: '/admin/harvest-sources',
    tag: 'admin',
    access: 'sysadmin',
    summary: 'List harvest sources, each with its last run',
    query: z.object({ ...paging }),
    response: listOf(HarvestSourceRecord),
    handle: ({ domain, actor, query }) => listHarvestSources(domain, actor, query),
  }),
  defineRoute({
    method: 'get',
    path: '/admin/harvest-sources/{id}',
    tag: 'admin',
    access: 'sysadmin',
    summary: 'A harvest source and its last run (counts move while it runs)',
    params: idParams,
    response: HarvestSourceRecord,
    handle: ({ domain, actor, params }) => getHarvestSource(domain, actor, params.id),
  }),
  defineRoute({
    method: 'get',
    path: '/admin/harvest-sources/{id}/runs',
    tag: 'admin',
    access: 'sysadmin',
    summary: "A harvest source's runs, newest first",
    params: idParams,
    query: z.object({ ...paging }),
    response: listOf(HarvestRunRecord),
    handle: ({ domain, actor, params, query }) => listHarvestRuns(domain, actor, params.id, query),
  }),
  defineRoute({
    method: 'put',
    path: '/admin/harvest-sources/{id}',
    problems: ['conflict', 'jobs_unavailable'],
    tag: 'admin',
    access: 'sysadmin',
    summary: 'Update a harvest source: the fields given replace its own; a changed schedule changes its Temporal Schedule',
    params: idParams,
    body: z.strictObject({
      name: fields.name.optional(),
      type: fields.type.optional(),
      url: fields.url.optional(),
      organization: fields.organization.optional(),
      deleteRemoved: fields.deleteRemoved.optional(),
      schedule: fields.schedule.optional(),
      maxPages: fields.maxPages.optional(),
      maxRunMinutes: fields.maxRunMinutes.optional(),
      filters: fields.filters.optional(),
      defaults: fields.defaults.optional(),
    }),
    response: HarvestSourceRecord,
    handle: ({ domain, actor, params, body }) => updateHarvestSource(domain, actor, params.id, body),
  }),
  defineRoute({
    method: 'delete',
    path: '/admin/harvest-sources/{id}',
    problems: ['jobs_unavailable', 'purge_incomplete'],
    tag: 'admin',
    access: 'sysadmin',
    summary:
      'Delete a harvest source, its schedule and its runs; the datasets it brought stay, detached (editable by hand), unless purge=true removes them for good',
    params: idParams,
    query: z.object({ purge: flag.optional() }),
    handle: ({ domain, actor, params, query }) => deleteHarvestSource(domain, actor, params.id, { purge: query.purge ?? false }),
  }),
  defineRoute({
    method: 'post',
    path: '/admin/harvest-sources/{id}/run',
    problems: ['jobs_unavailable'],
    tag: 'admin',
    access: 'sysadmin',
    status: 202,
    summary:
      'Run the harvest now, as the workflow harvest-<id>; a run already going is joined. A CKAN source runs incrementally unless full, or its last full run is over 7 days old, or it was changed since its last run',
    params: idParams,
    body: z
      .strictObject({
        full: z.boolean().optional().describe('Read everything (and so find the datasets removed at the source), also from a CKAN source'),
      })
      .optional(),
    response: Accepted,
    handle: ({ domain, actor, params, body }) => runHarvestSource(domain, actor, params.id, { full: body?.full ?? false }),
  }),
];
