import {
  Client,
  Connection,
  ServiceError,
  TerminatedFailure,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  defaultGrpcRetryOptions,
  isGrpcServiceError,
  makeGrpcRetryInterceptor,
  type WorkflowIdConflictPolicy,
  type WorkflowIdReusePolicy,
} from '@temporalio/client';
import { DomainError, deletionIncomplete, jobsUnavailable, purgeIncomplete, searchSyncFailed } from '../domain/errors.ts';
import {
  DELETE_ALL_DATA_WORKFLOW_ID,
  ENQUEUE_ALL_WORKFLOW_ID,
  LINK_CHECK_WORKFLOW_ID,
  REINDEX_WORKFLOW_ID,
  deleteDraftWorkflowId,
  harvestWorkflowId,
  pipelineWorkflowId,
  publishSyncWorkflowId,
  purgeDatasetWorkflowId,
  purgeOrgWorkflowId,
  vectorBacklogWorkflowId,
} from '../domain/jobs/ids.ts';
import type { HarvestSchedule, JobFilter, JobStart, Jobs, LinkCheckOptions } from '../domain/jobs/port.ts';
import type { PageRequest } from '../domain/pagination.ts';
import type * as workflows from '../../workflows/index.ts';
import { countJobs, jobsQuery, listJobRuns } from './job-visibility.ts';
import { ensureHarvestSchedule, removeHarvestSchedule } from './schedules.ts';

/** How long a request waits on Temporal before it answers 503, rather than hang on the client's retries. */
const CALL_DEADLINE_MS = 5_000;
/** How long a request waits for a workflow it runs to completion (a sync, a draft deletion). */
const AWAIT_DEADLINE_MS = 30_000;

type WorkflowType = keyof typeof workflows & `${string}Workflow`;

/**
 * The one door to Temporal: starts workflows by their deterministic ids, waits for the ones a request
 * awaits, describes them, and reads the visibility store for the jobs list. Temporal out of reach (or
 * slower than CALL_DEADLINE_MS) is `jobs_unavailable`, one error wherever it happens.
 */
export class TemporalJobs implements Jobs {
  private constructor(
    readonly client: Client,
    readonly taskQueue: string,
    private readonly uiUrl: string,
    private readonly retries: RetryGuard,
  ) {}

  /** Connected now, or (`lazy`) on first use: the tests reach for a server that is not there. */
  static async connect(opts: { address: string; namespace: string; taskQueue: string; uiUrl: string; lazy?: boolean }) {
    const retries = new RetryGuard();
    const options = { address: opts.address, interceptors: [retries.interceptor()], connectTimeout: '2s' };
    const connection = opts.lazy ? Connection.lazy(options) : await Connection.connect(options);
    return new TemporalJobs(new Client({ connection, namespace: opts.namespace }), opts.taskQueue, opts.uiUrl, retries);
  }

  async startOrganizationPurge(orgId: string) {
    const workflowId = purgeOrgWorkflowId(orgId);
    try {
      return await this.start('purgeOrganizationWorkflow', workflowId, [orgId], 'USE_EXISTING', 'ALLOW_DUPLICATE_FAILED_ONLY');
    } catch (err) {
      // Completed already (a request racing its last step): that run is the answer.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      const { runId } = await this.call(() => this.client.workflow.getHandle(workflowId).describe());
      return { workflowId, runId, uiUrl: this.workflowUiUrl(workflowId) };
    }
  }

  async isOrganizationPurgeRunning(orgId: string) {
    try {
      const description = await this.call(() => this.client.workflow.getHandle(purgeOrgWorkflowId(orgId)).describe());
      return description.status.name === 'RUNNING';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  }

  startDataDeletion() {
    return this.start('deleteAllDataWorkflow', DELETE_ALL_DATA_WORKFLOW_ID, [], 'USE_EXISTING');
  }

  // Every output is keyed by the resource id, so the new run overwrites whatever the replaced one left.
  startPipeline(resourceId: string) {
    return this.start('pipelineWorkflow', pipelineWorkflowId(resourceId), [resourceId], 'TERMINATE_EXISTING');
  }

  deleteDraft(datasetId: string) {
    return this.runAwaited('deleteDraftWorkflow', deleteDraftWorkflowId(datasetId), datasetId, deletionIncomplete);
  }

  purgeDataset(datasetId: string) {
    return this.runAwaited('purgeDatasetWorkflow', purgeDatasetWorkflowId(datasetId), datasetId, purgeIncomplete);
  }

  // A newer change restarts a sync still running (the newest row wins); the one it replaced counts as done.
  syncSearch(datasetId: string) {
    return this.runAwaited('publishSyncWorkflow', publishSyncWorkflowId(datasetId), datasetId, searchSyncFailed, 'TERMINATE_EXISTING');
  }

  startEnqueueAll() {
    return this.start('enqueueAllWorkflow', ENQUEUE_ALL_WORKFLOW_ID, [], 'USE_EXISTING');
  }

  startReindex() {
    return this.start('reindexMetadataWorkflow', REINDEX_WORKFLOW_ID, [], 'USE_EXISTING');
  }

  async announceVectorBacklog() {
    await this.call(() =>
      this.client.workflow.signalWithStart('vectorBacklogWorkflow', {
        taskQueue: this.taskQueue,
        workflowId: vectorBacklogWorkflowId(this.taskQueue),
        args: [{}],
        signal: 'vectorsPending',
        signalArgs: [],
      }),
    );
  }

  // Joins a check already running, whether a request started it (`link-check`) or the schedule did (`link-check-<time>`).
  async startLinkCheck(options: LinkCheckOptions) {
    const running = await this.call(async () => {
      const query = jobsQuery(this.taskQueue, { type: 'link-check', status: 'running' });
      for await (const info of this.client.workflow.list({ query, pageSize: 1 })) return info;
      return undefined;
    });
    if (running) return { workflowId: running.workflowId, runId: running.runId, uiUrl: this.workflowUiUrl(running.workflowId) };
    return this.start('linkCheckWorkflow', LINK_CHECK_WORKFLOW_ID, [options], 'USE_EXISTING');
  }

  // Joins a run already going, whether a request started it (`harvest-<id>`) or the schedule did (`harvest-<id>-<time>`).
  async startHarvest(sourceId: string, opts: { full?: boolean } = {}) {
    const running = await this.runningHarvest(sourceId);
    if (running) return { ...running, uiUrl: this.workflowUiUrl(running.workflowId), joined: true };
    // USE_EXISTING: two requests racing past the check above still get one run.
    const started = await this.start(
      'harvestWorkflow',
      harvestWorkflowId(sourceId),
      [{ sourceId, full: opts.full ?? false }],
      'USE_EXISTING',
    );
    return { ...started, joined: false };
  }

  async otherHarvestRunning(sourceId: string, exceptWorkflowId: string) {
    const running = await this.runningHarvest(sourceId, exceptWorkflowId);
    return running ? { workflowId: running.workflowId } : undefined;
  }

  async isHarvestRunning(workflowId: string) {
    try {
      const description = await this.call(() => this.client.workflow.getHandle(workflowId).describe());
      return description.status.name === 'RUNNING';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  }

  // Every run of the source still going: the one a request started, and any its schedule started.
  async stopHarvest(sourceId: string) {
    const workflowId = harvestWorkflowId(sourceId);
    const query = `${jobsQuery(this.taskQueue, { type: 'harvest', status: 'running' })} AND WorkflowId STARTS_WITH '${workflowId}-'`;
    await this.call(async () => {
      const ids = [workflowId];
      for await (const info of this.client.workflow.list({ query })) ids.push(info.workflowId);
      for (const id of ids) {
        try {
          await this.client.workflow.getHandle(id).terminate('The harvest source was deleted.');
        } catch (err) {
          // Not there, or already closed.
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        }
      }
    });
  }

  async setHarvestSchedule(sourceId: string, schedule: HarvestSchedule | null) {
    await this.call(async () => {
      if (schedule) await ensureHarvestSchedule(this.client, { sourceId, cron: schedule.cron, taskQueue: this.taskQueue });
      else await removeHarvestSchedule(this.client, sourceId);
    });
  }

  private async runningHarvest(sourceId: string, except?: string): Promise<{ workflowId: string; runId: string } | undefined> {
    const workflowId = harvestWorkflowId(sourceId);
    if (except !== workflowId) {
      try {
        const description = await this.call(() => this.client.workflow.getHandle(workflowId).describe());
        if (description.status.name === 'RUNNING') return { workflowId, runId: description.runId };
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
    }
    const query =
      `${jobsQuery(this.taskQueue, { type: 'harvest', status: 'running' })} AND WorkflowId STARTS_WITH '${workflowId}-'` +
      (except ? ` AND WorkflowId != '${except}'` : '');
    return this.call(async () => {
      for await (const info of this.client.workflow.list({ query, pageSize: 1 })) return { workflowId: info.workflowId, runId: info.runId };
      return undefined;
    });
  }

  list(filter: JobFilter, req: PageRequest) {
    return this.call(() =>
      listJobRuns(
        this.client,
        this.taskQueue,
        filter,
        req,
        (run) => `${this.workflowUiUrl(run.workflowId)}/${encodeURIComponent(run.runId)}/history`,
      ),
    );
  }

  stats() {
    return this.call(() => countJobs(this.client, this.taskQueue));
  }

  async isReachable() {
    try {
      await this.client.workflowService.getSystemInfo({});
      return true;
    } catch {
      return false;
    }
  }

  workflowUiUrl(workflowId: string) {
    return `${this.uiUrl}/namespaces/${encodeURIComponent(this.client.options.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  }

  /** Closes the connection once no retry of an earlier call is still waiting to fire on it. */
  async close() {
    await this.retries.drain();
    await this.client.connection.close();
  }

  /** One call to Temporal under the deadline; out of reach is `jobs_unavailable`, anything else a bug. */
  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await this.client.withDeadline(Date.now() + CALL_DEADLINE_MS, work);
    } catch (err) {
      if (err instanceof ServiceError || isGrpcServiceError(err)) throw jobsUnavailable();
      throw err;
    }
  }

  private async start(
    type: WorkflowType,
    workflowId: string,
    args: unknown[],
    onRunning: WorkflowIdConflictPolicy,
    onClosed?: WorkflowIdReusePolicy,
  ): Promise<JobStart> {
    const handle = await this.startHandle(type, workflowId, args, onRunning, onClosed);
    return { workflowId, runId: handle.firstExecutionRunId, uiUrl: this.workflowUiUrl(workflowId) };
  }

  private startHandle(
    type: WorkflowType,
    workflowId: string,
    args: unknown[],
    onRunning: WorkflowIdConflictPolicy,
    onClosed?: WorkflowIdReusePolicy,
  ) {
    return this.call(() =>
      this.client.workflow.start(type, {
        taskQueue: this.taskQueue,
        workflowId,
        args,
        workflowIdConflictPolicy: onRunning,
        ...(onClosed ? { workflowIdReusePolicy: onClosed } : {}),
      }),
    );
  }

  private async runAwaited(
    type: 'deleteDraftWorkflow' | 'purgeDatasetWorkflow' | 'publishSyncWorkflow',
    workflowId: string,
    datasetId: string,
    failed: () => DomainError,
    onRunning: WorkflowIdConflictPolicy = 'USE_EXISTING',
  ): Promise<void> {
    // The handle follows the run it started or joined: one replaced by a newer run ends as terminated.
    const handle = await this.startHandle(type, workflowId, [datasetId], onRunning);
    // With no worker polling, a result would never come: the caller hears 503 rather than hang.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(failed()), AWAIT_DEADLINE_MS);
    });
    try {
      await Promise.race([handle.result(), late]);
    } catch (err) {
      if (err instanceof DomainError) throw err;
      if (err instanceof WorkflowFailedError && err.cause instanceof TerminatedFailure) return;
      if (err instanceof WorkflowFailedError) throw failed();
      if (err instanceof ServiceError || isGrpcServiceError(err)) throw jobsUnavailable();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The SDK's gRPC retries go on in timers after the call that started them has given up at its deadline;
 * one that fires after the connection closed throws "Channel has been shut down" from a timer, an
 * uncaught exception that takes the process down in the middle of its shutdown. This guard counts the
 * retries waiting, stops scheduling new ones once closing starts, and lets close() wait for the rest
 * (at most the SDK's longest back-off, 5 s, and only when Temporal was failing just then).
 */
class RetryGuard {
  private closing = false;
  private waiting = 0;
  private drained?: () => void;

  interceptor() {
    const defaults = defaultGrpcRetryOptions();
    return makeGrpcRetryInterceptor({
      retryableDecider: (attempt, status) => !this.closing && defaults.retryableDecider(attempt, status),
      delayFunction: (attempt, status) => {
        const delay = defaults.delayFunction(attempt, status);
        this.waiting++;
        // Called as the retry is scheduled; it has run (or found the call over) once the delay is past.
        setTimeout(() => {
          if (--this.waiting === 0) this.drained?.();
        }, delay + 50);
        return delay;
      },
    });
  }

  drain(): Promise<void> {
    this.closing = true;
    if (this.waiting === 0) return Promise.resolve();
    return new Promise((resolve) => (this.drained = resolve));
  }
}
