import { isGrpcServiceError, type Client, type WorkflowExecutionInfo, type WorkflowExecutionStatusName } from '@temporalio/client';
import type { ProtoFailure } from '@temporalio/common';
import { JOB_STATUS_NAMES, JOB_TYPE_NAMES, JOB_TYPES, type JobStatus, type JobType } from '../domain/jobs/ids.ts';
import type { JobFilter, JobRun, JobStats, StatusCounts } from '../domain/jobs/port.ts';
import { page, type Page, type PageRequest } from '../domain/pagination.ts';

/**
 * The jobs list and counts, read from Temporal's visibility store: there is no job table of our own.
 * The task queue keeps apart deployments (and test files) that share one Temporal namespace.
 */

/** The ExecutionStatus names of visibility queries, per GET /admin/jobs?status= value. */
const VISIBILITY_STATUS: Record<JobStatus, string> = {
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  canceled: 'Canceled',
  terminated: 'Terminated',
  timed_out: 'TimedOut',
  continued_as_new: 'ContinuedAsNew',
};
const STATUS_OF_VISIBILITY = Object.fromEntries(Object.entries(VISIBILITY_STATUS).map(([k, v]) => [v, k as JobStatus]));
const STATUS_OF_EXECUTION: Partial<Record<WorkflowExecutionStatusName, JobStatus>> = {
  RUNNING: 'running',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'canceled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
  CONTINUED_AS_NEW: 'continued_as_new',
};

/** The visibility store pages at most this many rows per call. */
const MAX_VISIBILITY_PAGE = 1_000;

/** A visibility query string literal. */
const literal = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The visibility query for this deployment's jobs. */
export function jobsQuery(taskQueue: string, filter: JobFilter = {}): string {
  const terms = [`TaskQueue = ${literal(taskQueue)}`];
  if (filter.type) terms.push(`WorkflowType = ${literal(JOB_TYPES[filter.type])}`);
  if (filter.status) terms.push(`ExecutionStatus = ${literal(VISIBILITY_STATUS[filter.status])}`);
  return terms.join(' AND ');
}

/** The messages of a failure and its causes, outermost first: "Activity task failed: connection reset". */
export function failureMessage(failure: ProtoFailure | null | undefined): string | null {
  const messages: string[] = [];
  for (let f = failure; f && messages.length < 10; f = f.cause) {
    if (f.message && messages.at(-1) !== f.message) messages.push(f.message);
  }
  return messages.length ? messages.join(': ') : null;
}

export async function listJobRuns(
  client: Client,
  taskQueue: string,
  filter: JobFilter,
  req: PageRequest,
  uiUrl: (run: { workflowId: string; runId: string }) => string,
): Promise<Page<JobRun>> {
  const query = jobsQuery(taskQueue, filter);
  const [{ count }, infos] = await Promise.all([client.workflow.count(query), pageOfExecutions(client, query, req)]);
  const runs = await Promise.all(
    infos.map(async (info): Promise<JobRun> => ({
      workflowId: info.workflowId,
      runId: info.runId,
      workflowType: info.type,
      status: STATUS_OF_EXECUTION[info.status.name] ?? info.status.name.toLowerCase(),
      startedAt: info.startTime,
      closedAt: info.closeTime ?? null,
      ...(info.status.name === 'FAILED' ? { error: await closeFailure(client, info) } : {}),
      uiUrl: uiUrl(info),
    })),
  );
  return page(runs, count, req);
}

/**
 * Visibility pages by token, not by offset: read past the first `offset` rows (one call for the first
 * thousand), then keep `limit`.
 */
async function pageOfExecutions(client: Client, query: string, req: PageRequest) {
  const infos: WorkflowExecutionInfo[] = [];
  let index = 0;
  const pageSize = Math.min(req.offset + req.limit, MAX_VISIBILITY_PAGE);
  for await (const info of client.workflow.list({ query, pageSize })) {
    if (index++ >= req.offset) infos.push(info);
    if (infos.length >= req.limit) break;
  }
  return infos;
}

/** Only the close event is fetched, however long the history: one small call per failed row. */
async function closeFailure(client: Client, info: WorkflowExecutionInfo): Promise<string | null> {
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

/** Counts of this deployment's jobs per status, overall and per type. */
export async function countJobs(client: Client, taskQueue: string): Promise<JobStats> {
  const countByStatus = async (filter: JobFilter) => {
    const res = await client.workflow.count(`${jobsQuery(taskQueue, filter)} GROUP BY ExecutionStatus`);
    const byStatus = Object.fromEntries(JOB_STATUS_NAMES.map((s) => [s, 0])) as StatusCounts;
    for (const group of res.groups) {
      const value = group.groupValues[0];
      const status = STATUS_OF_VISIBILITY[String(Array.isArray(value) ? value[0] : value)];
      if (status) byStatus[status] += group.count;
    }
    return { total: res.count, byStatus };
  };
  // Visibility groups by ExecutionStatus only, so each type is a query of its own.
  const [all, ...perType] = await Promise.all([countByStatus({}), ...JOB_TYPE_NAMES.map((type) => countByStatus({ type }))]);
  return {
    total: all.total,
    byStatus: all.byStatus,
    byType: Object.fromEntries(JOB_TYPE_NAMES.map((type, i) => [type, { total: perType[i]!.total, ...perType[i]!.byStatus }])) as Record<
      JobType,
      { total: number } & StatusCounts
    >,
  };
}
