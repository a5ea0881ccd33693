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
} from '@temporalio/client';
import { DomainError, jobsUnavailable } from '../domain/errors.ts';
import { harvestWorkflowId } from '../domain/jobs/ids.ts';
import type { HarvestSchedule, JobFilter, JobStart, Jobs, LinkCheckOptions } from '../domain/jobs/port.ts';
import type { PageRequest } from '../domain/pagination.ts';
import { JOBS, type AnyJob, type AwaitedJob, type JobName, type SubjectOf } from './job-table.ts';
import { countJobs, jobsQuery, listJobRuns } from './job-visibility.ts';
import { QuietTrigger } from './quiet-trigger.ts';
import { ensureHarvestSchedule, removeHarvestSchedule } from './schedules.ts';

/** How long a request waits on Temporal before it answers 503, rather than hang on the client's retries. */
const CALL_DEADLINE_MS = 5_000;
/** How long a request waits for a workflow it runs to completion (a sync, a draft deletion). */
const AWAIT_DEADLINE_MS = 30_000;
/** A new dataset's vectors: announced once creations pause this long, or at the latest this long after the first. */
const BACKLOG_QUIET_MS = 1_000;
const BACKLOG_MAX_WAIT_MS = 20_000;

/**
 * The one door to Temporal: starts the jobs of its table (job-table.ts) by their deterministic ids, waits for the ones a
 * request awaits, describes them, and reads the visibility store for the jobs list. Temporal out of reach
 * (or slower than CALL_DEADLINE_MS) is `jobs_unavailable`, one error wherever it happens.
 */
export class TemporalJobs implements Jobs {
  private readonly backlog = new QuietTrigger(
    () => this.announceVectorBacklog().catch((err: unknown) => this.onBacklogError(err)),
    BACKLOG_QUIET_MS,
    BACKLOG_MAX_WAIT_MS,
  );
  private onBacklogError: (err: unknown) => void = () => {};

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

  startOrganizationPurge(orgId: string, actorId: string | null = null) {
    return this.start('purge-org', orgId, actorId);
  }

  isOrganizationPurgeRunning(orgId: string) {
    return this.isRunning(JOBS['purge-org'].id(orgId));
  }

  startDataDeletion() {
    return this.start('delete-all-data');
  }

  startPipeline(resourceId: string) {
    return this.start('pipeline', resourceId);
  }

  deleteDraft(datasetId: string, actorId: string | null = null) {
    return this.runAwaited('delete-draft', datasetId, actorId);
  }

  purgeDataset(datasetId: string, actorId: string | null = null) {
    return this.runAwaited('purge-dataset', datasetId, actorId);
  }

  syncSearch(datasetId: string) {
    return this.runAwaited('publish-sync', datasetId);
  }

  startEnqueueAll() {
    return this.start('enqueue-all');
  }

  startReindex() {
    return this.start('reindex-metadata');
  }

  async announceVectorBacklog() {
    await this.launch('vector-backlog', this.taskQueue);
  }

  announceVectorBacklogSoon(onError: (err: unknown) => void) {
    this.onBacklogError = onError;
    this.backlog.poke();
  }

  // Joins a check already running, whether a request started it (`link-check`) or the schedule did (`link-check-<time>`).
  async startLinkCheck(options: LinkCheckOptions) {
    const running = await this.call(async () => {
      const query = jobsQuery(this.taskQueue, { type: 'link-check', status: 'running' });
      for await (const info of this.client.workflow.list({ query, pageSize: 1 })) return info;
      return undefined;
    });
    if (running) return { workflowId: running.workflowId, runId: running.runId, uiUrl: this.workflowUiUrl(running.workflowId) };
    return this.start('link-check', options);
  }

  // Joins a run already going, whether a request started it (`harvest-<id>`) or the schedule did (`harvest-<id>-<time>`).
  async startHarvest(sourceId: string, opts: { full?: boolean } = {}) {
    const running = await this.runningHarvest(sourceId);
    if (running) return { ...running, uiUrl: this.workflowUiUrl(running.workflowId), joined: true };
    const started = await this.start('harvest', sourceId, opts.full ?? false);
    return { ...started, joined: false };
  }

  async otherHarvestRunning(sourceId: string, exceptWorkflowId: string) {
    const running = await this.runningHarvest(sourceId, exceptWorkflowId);
    return running ? { workflowId: running.workflowId } : undefined;
  }

  isHarvestRunning(workflowId: string) {
    return this.isRunning(workflowId);
  }

  private async isRunning(workflowId: string) {
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
    await this.backlog.flush();
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

  private async start<N extends JobName>(name: N, ...subject: SubjectOf<N>): Promise<JobStart> {
    try {
      const { workflowId, runId } = await this.launch(name, ...subject);
      return { workflowId, runId, uiUrl: this.workflowUiUrl(workflowId) };
    } catch (err) {
      // A closed run its onClosed policy keeps from running again (a request racing its last step): that run is the answer.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      const { runId } = await this.call(() => this.client.workflow.getHandle(err.workflowId).describe());
      return { workflowId: err.workflowId, runId, uiUrl: this.workflowUiUrl(err.workflowId) };
    }
  }

  /** Starts (or joins, replaces, signals) the job's run; the handle follows the run it started or joined. */
  private async launch<N extends JobName>(name: N, ...subject: SubjectOf<N>) {
    const spec = JOBS[name] as unknown as AnyJob;
    const options = { taskQueue: this.taskQueue, workflowId: spec.id(...subject), args: spec.args(...subject) };
    const { onRunning, onClosed } = spec;
    if (typeof onRunning === 'object') {
      const handle = await this.call(() =>
        this.client.workflow.signalWithStart(spec.workflow, { ...options, signal: onRunning.signal, signalArgs: [] }),
      );
      return { workflowId: handle.workflowId, runId: handle.signaledRunId, result: () => handle.result() };
    }
    const handle = await this.call(() =>
      this.client.workflow.start(spec.workflow, {
        ...options,
        workflowIdConflictPolicy: onRunning,
        ...(onClosed ? { workflowIdReusePolicy: onClosed } : {}),
      }),
    );
    return { workflowId: handle.workflowId, runId: handle.firstExecutionRunId, result: () => handle.result() };
  }

  private async runAwaited(name: AwaitedJob, datasetId: string, actorId: string | null = null): Promise<void> {
    const failed = JOBS[name].awaited;
    // A run replaced by a newer one ends as terminated: the newer run carries the change.
    const run = await (name === 'publish-sync' ? this.launch(name, datasetId) : this.launch(name, datasetId, actorId));
    // With no worker polling, a result would never come: the caller hears 503 rather than hang.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(failed()), AWAIT_DEADLINE_MS);
    });
    try {
      await Promise.race([run.result(), late]);
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
