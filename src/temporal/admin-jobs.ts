import { ServiceError, isGrpcServiceError, type WorkflowExecutionInfo, type WorkflowExecutionStatusName } from '@temporalio/client';
import type { ProtoFailure } from '@temporalio/common';
import { DomainError } from '../domain/errors.ts';
import { isUuid } from '../domain/ids.ts';
import { page, type Page, type PageRequest } from '../domain/pagination.ts';
import type { enqueueAllWorkflow, linkCheckWorkflow, reindexMetadataWorkflow } from '../../workflows/index.ts';
import type { LinkCheckOptions } from '../../workflows/link-check.ts';
import {
  deleteDraftWorkflowId,
  pipelineWorkflowId,
  publishSyncWorkflowId,
  purgeDatasetWorkflowId,
  purgeOrgWorkflowId,
  type Workflows,
} from './workflows-client.ts';

/**
 * What the admin endpoints ask of Temporal: the job list and counts, read from its visibility store
 * (there is no job table of our own), and the site-wide jobs they start.
 */

export const ENQUEUE_ALL_WORKFLOW_ID = 'enqueue-all';
export const LINK_CHECK_WORKFLOW_ID = 'link-check';
export const REINDEX_WORKFLOW_ID = 'reindex-metadata';

/** The job types of GET /admin/jobs?type=, named like their workflow ids, and their workflow types. */
export const JOB_TYPES = {
  pipeline: 'pipelineWorkflow',
  'publish-sync': 'publishSyncWorkflow',
  'purge-org': 'purgeOrganizationWorkflow',
  'purge-dataset': 'purgeDatasetWorkflow',
  'delete-draft': 'deleteDraftWorkflow',
  'delete-all-data': 'deleteAllDataWorkflow',
  'enqueue-all': 'enqueueAllWorkflow',
  'link-check': 'linkCheckWorkflow',
  'reindex-metadata': 'reindexMetadataWorkflow',
} as const;
export type JobType = keyof typeof JOB_TYPES;
export const JOB_TYPE_NAMES = Object.keys(JOB_TYPES) as [JobType, ...JobType[]];

/** GET /admin/jobs?status= values and the ExecutionStatus names of visibility queries. */
export const JOB_STATUSES = {
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  canceled: 'Canceled',
  terminated: 'Terminated',
  timed_out: 'TimedOut',
  continued_as_new: 'ContinuedAsNew',
} as const;
export type JobStatus = keyof typeof JOB_STATUSES;
export const JOB_STATUS_NAMES = Object.keys(JOB_STATUSES) as [JobStatus, ...JobStatus[]];

const STATUS_OF_EXECUTION: Partial<Record<WorkflowExecutionStatusName, JobStatus>> = {
  RUNNING: 'running',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'canceled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
  CONTINUED_AS_NEW: 'continued_as_new',
};
const STATUS_OF_VISIBILITY = Object.fromEntries(Object.entries(JOB_STATUSES).map(([k, v]) => [v, k as JobStatus]));
const TYPE_OF_WORKFLOW: Record<string, JobType> = Object.fromEntries(Object.entries(JOB_TYPES).map(([k, v]) => [v, k as JobType]));

/** Which record a job works on, read back from its deterministic workflow id. */
const SUBJECTS: Record<string, { prefix: string; field: 'resourceId' | 'packageId' | 'organizationId' }> = {
  pipelineWorkflow: { prefix: pipelineWorkflowId(''), field: 'resourceId' },
  publishSyncWorkflow: { prefix: publishSyncWorkflowId(''), field: 'packageId' },
  deleteDraftWorkflow: { prefix: deleteDraftWorkflowId(''), field: 'packageId' },
  purgeDatasetWorkflow: { prefix: purgeDatasetWorkflowId(''), field: 'packageId' },
  purgeOrganizationWorkflow: { prefix: purgeOrgWorkflowId(''), field: 'organizationId' },
};

export interface JobFilter {
  type?: JobType;
  status?: JobStatus;
}

export interface JobRow {
  workflowId: string;
  runId: string;
  /** A JOB_TYPES name; a workflow type this list does not know keeps its own name. */
  type: string;
  status: string;
  resourceId?: string;
  packageId?: string;
  organizationId?: string;
  startedAt: string;
  closedAt: string | null;
  /** Failed runs only: the failure's message, down to its root cause. */
  error?: string | null;
  uiUrl: string;
}

/** How long an admin request waits on Temporal before it answers 503. */
const CALL_DEADLINE_MS = 5_000;
/** The visibility store pages at most this many rows per call. */
const MAX_VISIBILITY_PAGE = 1_000;

const unavailable = () =>
  new DomainError(503, 'jobs_unavailable', 'Service unavailable', 'Background jobs cannot be reached right now; try again shortly.');

/** Temporal out of reach (or too slow) is a 503 the caller can retry; anything else is a bug. */
async function temporalCall<T>(workflows: Workflows, work: () => Promise<T>): Promise<T> {
  try {
    return await workflows.client.withDeadline(Date.now() + CALL_DEADLINE_MS, work);
  } catch (err) {
    if (err instanceof ServiceError || isGrpcServiceError(err)) throw unavailable();
    throw err;
  }
}

/** A visibility query string literal. */
const literal = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * The visibility query for this app's jobs: the task queue keeps apart deployments (and test files)
 * that share one Temporal namespace.
 */
export function jobsQuery(taskQueue: string, filter: JobFilter = {}): string {
  const terms = [`TaskQueue = ${literal(taskQueue)}`];
  if (filter.type) terms.push(`WorkflowType = ${literal(JOB_TYPES[filter.type])}`);
  if (filter.status) terms.push(`ExecutionStatus = ${literal(JOB_STATUSES[filter.status])}`);
  return terms.join(' AND ');
}

/** `pipeline-<uuid>` of a pipelineWorkflow → `{resourceId: <uuid>}`, and so on; nothing for other ids. */
export function jobSubject(workflowType: string, workflowId: string): Pick<JobRow, 'resourceId' | 'packageId' | 'organizationId'> {
  const subject = SUBJECTS[workflowType];
  if (!subject || !workflowId.startsWith(subject.prefix)) return {};
  const id = workflowId.slice(subject.prefix.length);
  return isUuid(id) ? { [subject.field]: id } : {};
}

/** The messages of a failure and its causes, outermost first: "Activity task failed: connection reset". */
export function failureMessage(failure: ProtoFailure | null | undefined): string | null {
  const messages: string[] = [];
  for (let f = failure; f && messages.length < 10; f = f.cause) {
    if (f.message && messages.at(-1) !== f.message) messages.push(f.message);
  }
  return messages.length ? messages.join(': ') : null;
}

export async function listJobs(workflows: Workflows, taskQueue: string, filter: JobFilter, req: PageRequest): Promise<Page<JobRow>> {
  const query = jobsQuery(taskQueue, filter);
  return temporalCall(workflows, async () => {
    const [{ count }, infos] = await Promise.all([workflows.client.workflow.count(query), pageOfExecutions(workflows, query, req)]);
    const rows = await Promise.all(
      infos.map(async (info) => presentJob(workflows, info, info.status.name === 'FAILED' ? await closeFailure(workflows, info) : undefined)),
    );
    return page(rows, count, req);
  });
}

/**
 * Visibility pages by token, not by offset: read past the first `offset` rows (one call for the first
 * thousand), then keep `limit`.
 */
async function pageOfExecutions(workflows: Workflows, query: string, req: PageRequest) {
  const infos: WorkflowExecutionInfo[] = [];
  let index = 0;
  const pageSize = Math.min(req.offset + req.limit, MAX_VISIBILITY_PAGE);
  for await (const info of workflows.client.workflow.list({ query, pageSize })) {
    if (index++ >= req.offset) infos.push(info);
    if (infos.length >= req.limit) break;
  }
  return infos;
}

/** Only the close event is fetched, however long the history: one small call per failed row. */
async function closeFailure(workflows: Workflows, info: WorkflowExecutionInfo): Promise<string | null> {
  const { client } = workflows;
  try {
    const res = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId: info.workflowId, runId: info.runId },
      historyEventFilterType: 2, // HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT
    });
    const event = res.history?.events?.at(-1);
    return failureMessage(event?.workflowExecutionFailedEventAttributes?.failure);
  } catch (err) {
    // Past retention the history is gone while visibility may still list the run.
    if (isGrpcServiceError(err) && err.code === 5 /* NOT_FOUND */) return null;
    throw err;
  }
}

function presentJob(workflows: Workflows, info: WorkflowExecutionInfo, error: string | null | undefined): JobRow {
  return {
    workflowId: info.workflowId,
    runId: info.runId,
    type: TYPE_OF_WORKFLOW[info.type] ?? info.type,
    status: STATUS_OF_EXECUTION[info.status.name] ?? info.status.name.toLowerCase(),
    ...jobSubject(info.type, info.workflowId),
    startedAt: info.startTime.toISOString(),
    closedAt: info.closeTime?.toISOString() ?? null,
    ...(error !== undefined ? { error } : {}),
    uiUrl: `${workflows.workflowUiUrl(info.workflowId)}/${encodeURIComponent(info.runId)}/history`,
  };
}

type StatusCounts = Record<JobStatus, number>;

/** Counts of this app's jobs per status, overall and per type. */
export async function jobStats(workflows: Workflows, taskQueue: string) {
  const countByStatus = async (filter: JobFilter) => {
    const res = await workflows.client.workflow.count(`${jobsQuery(taskQueue, filter)} GROUP BY ExecutionStatus`);
    const byStatus = Object.fromEntries(JOB_STATUS_NAMES.map((s) => [s, 0])) as StatusCounts;
    for (const group of res.groups) {
      const value = group.groupValues[0];
      const status = STATUS_OF_VISIBILITY[String(Array.isArray(value) ? value[0] : value)];
      if (status) byStatus[status] += group.count;
    }
    return { total: res.count, byStatus };
  };
  return temporalCall(workflows, async () => {
    // Visibility groups by ExecutionStatus only, so each type is a query of its own.
    const [all, ...perType] = await Promise.all([countByStatus({}), ...JOB_TYPE_NAMES.map((type) => countByStatus({ type }))]);
    return {
      total: all.total,
      byStatus: all.byStatus,
      byType: Object.fromEntries(JOB_TYPE_NAMES.map((type, i) => [type, { total: perType[i].total, ...perType[i].byStatus }])) as Record<
        JobType,
        { total: number } & StatusCounts
      >,
    };
  });
}

/** Starts a site-wide job under its fixed workflow id, without arguments; a running one is joined. */
function startSingleton(workflows: Workflows, taskQueue: string, type: 'enqueueAllWorkflow' | 'reindexMetadataWorkflow', workflowId: string) {
  return temporalCall(workflows, async () => {
    const handle = await workflows.client.workflow.start<typeof enqueueAllWorkflow | typeof reindexMetadataWorkflow>(type, {
      taskQueue,
      workflowId,
      args: [],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    return { workflowId, runId: handle.firstExecutionRunId, uiUrl: workflows.workflowUiUrl(workflowId) };
  });
}

/** Starts `enqueue-all`; a running one is joined. */
export const startEnqueueAll = (workflows: Workflows, taskQueue: string) =>
  startSingleton(workflows, taskQueue, 'enqueueAllWorkflow', ENQUEUE_ALL_WORKFLOW_ID);

/** Starts `reindex-metadata`; a running one is joined. */
export const startReindex = (workflows: Workflows, taskQueue: string) =>
  startSingleton(workflows, taskQueue, 'reindexMetadataWorkflow', REINDEX_WORKFLOW_ID);

/**
 * Starts a link check now. A check already running is joined, whether an earlier request started it
 * (`link-check`) or the schedule did (`link-check-<time>`).
 */
export async function startLinkCheck(workflows: Workflows, taskQueue: string, options: LinkCheckOptions) {
  return temporalCall(workflows, async () => {
    const running = workflows.client.workflow.list({ query: jobsQuery(taskQueue, { type: 'link-check', status: 'running' }), pageSize: 1 });
    for await (const info of running) {
      return { workflowId: info.workflowId, runId: info.runId, uiUrl: workflows.workflowUiUrl(info.workflowId) };
    }
    const handle = await workflows.client.workflow.start<typeof linkCheckWorkflow>('linkCheckWorkflow', {
      taskQueue,
      workflowId: LINK_CHECK_WORKFLOW_ID,
      args: [options],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    return { workflowId: LINK_CHECK_WORKFLOW_ID, runId: handle.firstExecutionRunId, uiUrl: workflows.workflowUiUrl(LINK_CHECK_WORKFLOW_ID) };
  });
}
