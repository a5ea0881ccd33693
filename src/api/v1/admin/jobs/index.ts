import { z } from 'zod';
import { adminJobStats, listAdminJobs, requestEnqueueAll } from '../../../../domain/admin/jobs.ts';
import { defineRoute } from '../../../../http/route.ts';
import { Accepted, listOf, paging } from '../../../../http/schemas.ts';
import { JOB_STATUS_NAMES, JOB_TYPE_NAMES, jobSubject, jobTypeOf } from '../../../../domain/jobs/ids.ts';
import type { JobRun } from '../../../../domain/jobs/port.ts';

const JobRecord = z
  .object({
    workflowId: z.string(),
    runId: z.string(),
    type: z.string().describe(`One of ${JOB_TYPE_NAMES.join(', ')}; another workflow type keeps its own name`),
    status: z.string().describe(`One of ${JOB_STATUS_NAMES.join(', ')}`),
    resourceId: z.uuid().optional().describe('pipeline jobs'),
    packageId: z.uuid().optional().describe('publish-sync, delete-draft and purge-dataset jobs'),
    organizationId: z.uuid().optional().describe('purge-org jobs'),
    startedAt: z.iso.datetime(),
    closedAt: z.iso.datetime().nullable(),
    error: z.string().nullable().optional().describe('Failed runs only: the failure message, down to its cause'),
    uiUrl: z.string().describe('This run in the Temporal Web UI'),
  })
  .meta({ id: 'Job', description: 'A workflow run, from Temporal visibility' });

/** A run as GET /admin/jobs shows it: its job type's name and the record it works on, read from its id. */
function presentJob(run: JobRun): z.infer<typeof JobRecord> {
  return {
    workflowId: run.workflowId,
    runId: run.runId,
    type: jobTypeOf(run.workflowType),
    status: run.status,
    ...jobSubject(run.workflowType, run.workflowId),
    startedAt: run.startedAt.toISOString(),
    closedAt: run.closedAt?.toISOString() ?? null,
    ...(run.error !== undefined ? { error: run.error } : {}),
    uiUrl: run.uiUrl,
  };
}

/** A count per job status, every status present; an object (not a record and an intersection), so JSON Schema can say it. */
const statusCounts = Object.fromEntries(JOB_STATUS_NAMES.map((status) => [status, z.number().int()]));
const JobStats = z
  .object({
    total: z.number().int(),
    byStatus: z.strictObject(statusCounts),
    byType: z.record(z.enum(JOB_TYPE_NAMES), z.strictObject({ total: z.number().int(), ...statusCounts })),
  })
  .meta({ id: 'JobStats' });

export const adminJobRoutes = [
  defineRoute({
    method: 'get',
    path: '/admin/jobs',
    problems: ['jobs_unavailable'],
    tag: 'admin',
    access: 'sysadmin',
    summary: 'List background jobs (workflow runs) from Temporal; filter by type and status',
    query: z.object({
      type: z.enum(JOB_TYPE_NAMES).optional(),
      status: z.enum(JOB_STATUS_NAMES).optional(),
      ...paging,
    }),
    response: listOf(JobRecord),
    handle: async ({ domain, actor, query }) => {
      const jobs = await listAdminJobs(domain, actor, { type: query.type, status: query.status }, query);
      return { ...jobs, results: jobs.results.map(presentJob) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/admin/jobs/stats',
    problems: ['jobs_unavailable'],
    tag: 'admin',
    access: 'sysadmin',
    summary: 'Job counts per status, overall and per type',
    response: JobStats,
    handle: ({ domain, actor }) => adminJobStats(domain, actor),
  }),
  defineRoute({
    method: 'post',
    path: '/admin/jobs/enqueue-all',
    problems: ['jobs_unavailable'],
    tag: 'admin',
    access: 'sysadmin',
    status: 202,
    summary:
      'Run the resource pipeline for every resource with something to process, as the workflow enqueue-all (a running one is joined)',
    response: Accepted,
    handle: ({ domain, actor }) => requestEnqueueAll(domain, actor),
  }),
];
