import type { Page, PageRequest } from '../pagination.ts';
import type { JobStatus, JobType } from './ids.ts';

/**
 * What the domain asks of background jobs, declared here and implemented by the Temporal gateway
 * (src/temporal/gateway.ts), so that no rule depends on the engine that runs the work. Every method that
 * cannot reach the engine throws the `jobs_unavailable` error (503): the request can be retried.
 */
export interface Jobs {
  /**
   * A running purge is joined; a completed one is not run again; a failed one may be re-run. `actorId`,
   * here and below, is the user the history names for what the job removes (null: the system).
   */
  startOrganizationPurge(orgId: string, actorId?: string | null): Promise<JobStart>;
  /** True while `purge-org-<id>` runs; restoring must not race it. */
  isOrganizationPurgeRunning(orgId: string): Promise<boolean>;
  /** `delete-all-data`; a running one is joined. */
  startDataDeletion(): Promise<JobStart>;
  /** `pipeline-<resourceId>` over the resource's current bytes; a run busy with older bytes is replaced. */
  startPipeline(resourceId: string): Promise<JobStart>;
  /** Runs `delete-draft-<id>` and waits for it (503 `deletion_incomplete` when it cannot finish). */
  deleteDraft(datasetId: string, actorId?: string | null): Promise<void>;
  /** Runs `purge-dataset-<id>` and waits for it (503 `purge_incomplete`). */
  purgeDataset(datasetId: string, actorId?: string | null): Promise<void>;
  /** Runs `publish-sync-<id>` and waits for it, so a change is searchable when its request returns. */
  syncSearch(datasetId: string): Promise<void>;
  /** `enqueue-all`: the pipeline for every resource; a running one is joined. */
  startEnqueueAll(): Promise<JobStart>;
  /** `reindex-metadata`; a running one is joined. */
  startReindex(): Promise<JobStart>;
  /**
   * `vector-backlog-<task queue>`: embeds the points written without vectors. Started when none runs,
   * else told that there is more (it makes one more pass).
   */
  announceVectorBacklog(): Promise<void>;
  /**
   * announceVectorBacklog once announcements pause (a second), or at the latest 20 s after the first of a
   * burst: a bulk load is embedded after it, in pages, instead of competing with it dataset by dataset.
   * A failure goes to `onError`; a process that closes announces what is pending first.
   */
  announceVectorBacklogSoon(onError: (err: unknown) => void): void;
  /** A link check now; one already running (started here or by the schedule) is joined. */
  startLinkCheck(options: LinkCheckOptions): Promise<JobStart>;
  /**
   * `harvest-<sourceId>`: a run of the source; one already going (started here or by its schedule) is
   * joined (`joined: true`, its workflow id and current run id).
   */
  startHarvest(sourceId: string, opts?: { full?: boolean }): Promise<JobStart & { joined: boolean }>;
  /** A run of the source still going other than `exceptWorkflowId` (a request's or a schedule's), if any. */
  otherHarvestRunning(sourceId: string, exceptWorkflowId: string): Promise<{ workflowId: string } | undefined>;
  /** Whether the workflow `workflowId` (the latest run of its continue-as-new chain) is still running. */
  isHarvestRunning(workflowId: string): Promise<boolean>;
  /** Terminates the source's runs still going (`harvest-<id>`, `harvest-<id>-<time>`), so nothing more lands. */
  stopHarvest(sourceId: string): Promise<void>;
  /** Creates, updates (`schedule` given) or deletes (null) the Temporal Schedule `harvest-schedule-<sourceId>`. */
  setHarvestSchedule(sourceId: string, schedule: HarvestSchedule | null): Promise<void>;
  /** This deployment's job runs, running first, then the most recently closed. */
  list(filter: JobFilter, req: PageRequest): Promise<Page<JobRun>>;
  /** Counts of this deployment's jobs per status, overall and per type. */
  stats(): Promise<JobStats>;
  /** True when the engine answers; for /api/health. */
  isReachable(): Promise<boolean>;
}

/** A job started (or joined), and where an operator watches it. */
export interface JobStart {
  workflowId: string;
  runId: string;
  uiUrl: string;
}

/** When a harvest source runs: a cron expression (five fields, UTC), `daily` and `weekly` already turned into one. */
export interface HarvestSchedule {
  cron: string;
}

export interface JobFilter {
  type?: JobType;
  status?: JobStatus;
}

/** One run of a job as the engine reports it. */
export interface JobRun {
  workflowId: string;
  runId: string;
  workflowType: string;
  /** A JOB_STATUS_NAMES value; one this list does not know, lower-cased. */
  status: string;
  startedAt: Date;
  closedAt: Date | null;
  /** Failed runs only: the failure's message, down to its root cause (null when it is no longer kept). */
  error?: string | null;
  /** The run's history in the engine's UI. */
  uiUrl: string;
}

export type StatusCounts = Record<JobStatus, number>;

export interface JobStats {
  total: number;
  byStatus: StatusCounts;
  byType: Record<JobType, { total: number } & StatusCounts>;
}

export interface LinkCheckCounts {
  ok: number;
  broken: number;
  timeout: number;
}

/**
 * The paging of a job that walks its rows page by page in id order and continues as new every few
 * pages, so its history stays small however large the catalog.
 */
export interface PagedRunOptions {
  /** Rows read per activity call. */
  pageSize?: number;
  /** Pages per run before continue-as-new. */
  pagesPerRun?: number;
  /** Carried across continue-as-new: the last id done. */
  afterId?: string | null;
}

/** `sweep-storage`: orphans last modified longer ago than this are removed (younger ones may be a write in progress). */
export interface StorageSweepOptions {
  olderThanSeconds?: number;
}

/** What one sweep found and removed. */
export interface StorageSweepCounts {
  scanned: number;
  orphanCount: number;
  orphanBytes: number;
  removedCount: number;
}

/** Settings of a link check run (over link resources); the workflow carries the cursor and counts across continue-as-new. */
export interface LinkCheckOptions extends PagedRunOptions {
  /** One link's whole check (HEAD, maybe GET, redirects). */
  timeoutMs?: number;
  /** Links checked at once. */
  concurrency?: number;
  counts?: LinkCheckCounts;
}
