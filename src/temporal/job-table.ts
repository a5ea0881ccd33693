import type { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import { type DomainError, deletionIncomplete, purgeIncomplete, searchSyncFailed } from '../domain/errors.ts';
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
  type JOB_TYPES,
  type JobType,
} from '../domain/jobs/ids.ts';
import type { LinkCheckOptions } from '../domain/jobs/port.ts';
import type * as workflows from '../../workflows/index.ts';

type WorkflowType = keyof typeof workflows & `${string}Workflow`;

interface JobSpec<W extends WorkflowType, S extends unknown[]> {
  workflow: W;
  /**
   * The deterministic id (src/domain/jobs/ids.ts) of the job on this subject; the conditional type keeps
   * the subject inferred from `args` alone, where an id taking fewer parameters cannot shorten it.
   */
  id: (...subject: S extends unknown[] ? S : never) => string;
  args: (...subject: S) => Parameters<(typeof workflows)[W]>;
  /** A start while a run with the id is going: join it, replace it, or signal it that there is more. */
  onRunning: WorkflowIdConflictPolicy | { signal: string };
  /** A start after a run with the id closed; Temporal's default (a new run) when absent. */
  onClosed?: WorkflowIdReusePolicy;
}

/** `awaited`, when the request waits for the run: the error a run that cannot finish is. */
const job = <W extends WorkflowType, S extends unknown[], F extends (() => DomainError) | undefined = undefined>(
  spec: JobSpec<W, S> & { awaited?: F },
) => spec as JobSpec<W, S> & { awaited: F };

/**
 * Every job the service starts (the schedules of schedules.ts aside), keyed by its job type. A repeat
 * request joins the running job unless the table says it replaces it: a pipeline over newer bytes, a
 * sync of a newer row (the run replaced counts as done).
 */
export const JOBS = {
  // A completed purge is not run again (its run is the answer); a failed one is.
  'purge-org': job({
    workflow: 'purgeOrganizationWorkflow',
    id: purgeOrgWorkflowId,
    args: (orgId: string, actorId: string | null = null) => [orgId, { actorId }],
    onRunning: 'USE_EXISTING',
    onClosed: 'ALLOW_DUPLICATE_FAILED_ONLY',
  }),
  'delete-all-data': job({
    workflow: 'deleteAllDataWorkflow',
    id: () => DELETE_ALL_DATA_WORKFLOW_ID,
    args: () => [],
    onRunning: 'USE_EXISTING',
  }),
  // Every output is keyed by the resource id, so the new run overwrites whatever the replaced one left.
  pipeline: job({
    workflow: 'pipelineWorkflow',
    id: pipelineWorkflowId,
    args: (resourceId: string) => [resourceId],
    onRunning: 'TERMINATE_EXISTING',
  }),
  'delete-draft': job({
    workflow: 'deleteDraftWorkflow',
    id: deleteDraftWorkflowId,
    args: (datasetId: string, actorId: string | null = null) => [datasetId, actorId],
    onRunning: 'USE_EXISTING',
    awaited: deletionIncomplete,
  }),
  'purge-dataset': job({
    workflow: 'purgeDatasetWorkflow',
    id: purgeDatasetWorkflowId,
    args: (datasetId: string, actorId: string | null = null) => [datasetId, actorId],
    onRunning: 'USE_EXISTING',
    awaited: purgeIncomplete,
  }),
  'publish-sync': job({
    workflow: 'publishSyncWorkflow',
    id: publishSyncWorkflowId,
    args: (datasetId: string) => [datasetId],
    onRunning: 'TERMINATE_EXISTING',
    awaited: searchSyncFailed,
  }),
  'enqueue-all': job({ workflow: 'enqueueAllWorkflow', id: () => ENQUEUE_ALL_WORKFLOW_ID, args: () => [], onRunning: 'USE_EXISTING' }),
  'reindex-metadata': job({
    workflow: 'reindexMetadataWorkflow',
    id: () => REINDEX_WORKFLOW_ID,
    args: () => [],
    onRunning: 'USE_EXISTING',
  }),
  'vector-backlog': job({
    workflow: 'vectorBacklogWorkflow',
    id: vectorBacklogWorkflowId,
    args: (_taskQueue: string) => [{}],
    onRunning: { signal: 'vectorsPending' },
  }),
  'link-check': job({
    workflow: 'linkCheckWorkflow',
    id: () => LINK_CHECK_WORKFLOW_ID,
    args: (options: LinkCheckOptions) => [options],
    onRunning: 'USE_EXISTING',
  }),
  // USE_EXISTING: two requests racing past startHarvest's check for a running one still get one run.
  harvest: job({
    workflow: 'harvestWorkflow',
    id: harvestWorkflowId,
    args: (sourceId: string, full: boolean) => [{ sourceId, full }],
    onRunning: 'USE_EXISTING',
  }),
} satisfies { [T in JobType]?: { workflow: (typeof JOB_TYPES)[T] } };

export type JobName = keyof typeof JOBS;
export type SubjectOf<N extends JobName> = Parameters<(typeof JOBS)[N]['args']>;
export type AwaitedJob = { [N in JobName]: (typeof JOBS)[N]['awaited'] extends () => DomainError ? N : never }[JobName];
/** A table row as start() reads it, whatever its subject. */
export type AnyJob = Omit<JobSpec<WorkflowType, []>, 'id' | 'args'> & {
  id: (...subject: unknown[]) => string;
  args: (...subject: unknown[]) => unknown[];
};
