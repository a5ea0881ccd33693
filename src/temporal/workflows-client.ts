import {
  Client,
  Connection,
  ServiceError,
  TerminatedFailure,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { DomainError } from '../domain/errors.ts';
import type {
  deleteAllDataWorkflow,
  deleteDraftWorkflow,
  pipelineWorkflow,
  publishSyncWorkflow,
  purgeDatasetWorkflow,
  purgeOrganizationWorkflow,
} from '../../workflows/index.ts';

/** How long a request waits on Temporal before it answers 503, rather than hang on the client's retries. */
const CALL_DEADLINE_MS = 5_000;
/** How long a request waits for a workflow it runs to completion (a sync, a draft deletion). */
const AWAIT_DEADLINE_MS = 30_000;

/** Temporal out of reach is the service's outage, not a bug: 503, and the request can be retried. */
function asUnavailable(err: unknown) {
  if (!(err instanceof ServiceError)) return err;
  return new DomainError(503, 'jobs_unavailable', 'Service unavailable', 'Background jobs cannot be started right now; try again shortly.');
}

export const purgeOrgWorkflowId = (orgId: string) => `purge-org-${orgId}`;
export const deleteDraftWorkflowId = (datasetId: string) => `delete-draft-${datasetId}`;
export const purgeDatasetWorkflowId = (datasetId: string) => `purge-dataset-${datasetId}`;
export const publishSyncWorkflowId = (datasetId: string) => `publish-sync-${datasetId}`;
export const DELETE_ALL_DATA_WORKFLOW_ID = 'delete-all-data';
export const pipelineWorkflowId = (resourceId: string) => `pipeline-${resourceId}`;

/** The app's door to Temporal: starts workflows by their deterministic ids. */
export class Workflows {
  constructor(
    readonly client: Client,
    private readonly taskQueue: string,
    private readonly uiUrl: string,
  ) {}

  static async connect(opts: { address: string; namespace: string; taskQueue: string; uiUrl: string }) {
    const connection = await Connection.connect({ address: opts.address });
    return new Workflows(new Client({ connection, namespace: opts.namespace }), opts.taskQueue, opts.uiUrl);
  }

  /**
   * A running purge is joined; a completed one is not run again (a request racing its last step gets
   * that run back); a failed one may be re-run.
   */
  async startOrganizationPurge(orgId: string) {
    const workflowId = purgeOrgWorkflowId(orgId);
    let runId: string;
    try {
      const handle = await this.client.withDeadline(Date.now() + CALL_DEADLINE_MS, () =>
        this.client.workflow.start<typeof purgeOrganizationWorkflow>('purgeOrganizationWorkflow', {
          taskQueue: this.taskQueue,
          workflowId,
          args: [orgId],
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
        }),
      );
      runId = handle.firstExecutionRunId;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw asUnavailable(err);
      runId = (await this.client.workflow.getHandle(workflowId).describe()).runId;
    }
    return { workflowId, runId, uiUrl: this.workflowUiUrl(workflowId) };
  }

  /** Starts `delete-all-data` (a running one is joined). */
  async startDataDeletion() {
    try {
      const handle = await this.client.withDeadline(Date.now() + CALL_DEADLINE_MS, () =>
        this.client.workflow.start<typeof deleteAllDataWorkflow>('deleteAllDataWorkflow', {
          taskQueue: this.taskQueue,
          workflowId: DELETE_ALL_DATA_WORKFLOW_ID,
          args: [],
          workflowIdConflictPolicy: 'USE_EXISTING',
        }),
      );
      return { workflowId: DELETE_ALL_DATA_WORKFLOW_ID, runId: handle.firstExecutionRunId, uiUrl: this.workflowUiUrl(DELETE_ALL_DATA_WORKFLOW_ID) };
    } catch (err) {
      throw asUnavailable(err);
    }
  }

  /**
   * Starts `pipeline-<resourceId>` over the resource's current bytes. A run still busy with older bytes
   * is replaced: every output is keyed by the resource id, so the new run overwrites whatever it left.
   */
  async startPipeline(resourceId: string) {
    const workflowId = pipelineWorkflowId(resourceId);
    try {
      const handle = await this.client.withDeadline(Date.now() + CALL_DEADLINE_MS, () =>
        this.client.workflow.start<typeof pipelineWorkflow>('pipelineWorkflow', {
          taskQueue: this.taskQueue,
          workflowId,
          args: [resourceId],
          workflowIdConflictPolicy: 'TERMINATE_EXISTING',
        }),
      );
      return { workflowId, runId: handle.firstExecutionRunId, uiUrl: this.workflowUiUrl(workflowId) };
    } catch (err) {
      throw asUnavailable(err);
    }
  }

  /**
   * Runs `delete-draft-<id>` and waits for it: the DELETE of a draft answers only once the draft is gone.
   * A repeat joins a running deletion or re-runs a failed one; a failure is a 503 to retry.
   */
  deleteDraft(datasetId: string): Promise<void> {
    return this.runAwaited('deleteDraftWorkflow', deleteDraftWorkflowId(datasetId), datasetId, () =>
      new DomainError(503, 'deletion_incomplete', 'Deletion incomplete', 'The draft could not be deleted completely; repeat the DELETE to finish.'),
    );
  }

  /** Runs `purge-dataset-<id>` and waits for it; a failure is a 503 to retry. */
  purgeDataset(datasetId: string): Promise<void> {
    return this.runAwaited('purgeDatasetWorkflow', purgeDatasetWorkflowId(datasetId), datasetId, () =>
      new DomainError(503, 'purge_incomplete', 'Purge incomplete', 'The dataset could not be purged completely; repeat the request to finish.'),
    );
  }

  /**
   * Runs `publish-sync-<id>` and waits for it, so a change is searchable when its request returns. A
   * newer change restarts a sync still running (the newest row wins); the one it replaced counts as done.
   */
  syncSearch(datasetId: string): Promise<void> {
    return this.runAwaited('publishSyncWorkflow', publishSyncWorkflowId(datasetId), datasetId, () =>
      new DomainError(503, 'search_sync_failed', 'Search index not updated', 'The change is saved, but the search index could not be updated; publishing the dataset again re-runs the sync.'),
      'TERMINATE_EXISTING',
    );
  }

  private async runAwaited(
    type: 'deleteDraftWorkflow' | 'purgeDatasetWorkflow' | 'publishSyncWorkflow',
    workflowId: string,
    datasetId: string,
    failed: () => DomainError,
    onRunning: 'USE_EXISTING' | 'TERMINATE_EXISTING' = 'USE_EXISTING',
  ): Promise<void> {
    try {
      const handle = await this.client.withDeadline(Date.now() + CALL_DEADLINE_MS, () =>
        this.client.workflow.start<typeof deleteDraftWorkflow | typeof purgeDatasetWorkflow | typeof publishSyncWorkflow>(type, {
          taskQueue: this.taskQueue,
          workflowId,
          args: [datasetId],
          workflowIdConflictPolicy: onRunning,
        }),
      );
      // With no worker polling, a result would never come: the caller hears 503 rather than hang.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(failed()), AWAIT_DEADLINE_MS);
      });
      try {
        await Promise.race([handle.result(), late]);
      } finally {
        clearTimeout(timer);
      }
    } catch (err) {
      if (err instanceof DomainError) throw err;
      if (err instanceof WorkflowFailedError && err.cause instanceof TerminatedFailure) return;
      if (err instanceof WorkflowFailedError) throw failed();
      throw asUnavailable(err);
    }
  }

  /** True while `purge-org-<id>` runs; restoring must not race it. */
  async isOrganizationPurgeRunning(orgId: string): Promise<boolean> {
    try {
      const describe = () => this.client.workflow.getHandle(purgeOrgWorkflowId(orgId)).describe();
      return (await this.client.withDeadline(Date.now() + CALL_DEADLINE_MS, describe)).status.name === 'RUNNING';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw asUnavailable(err);
    }
  }

  workflowUiUrl(workflowId: string) {
    return `${this.uiUrl}/namespaces/${encodeURIComponent(this.client.options.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  }

  /** True when the frontend answers; used by /api/health. */
  async isReachable(): Promise<boolean> {
    try {
      await this.client.workflowService.getSystemInfo({});
      return true;
    } catch {
      return false;
    }
  }

  async close() {
    await this.client.connection.close();
  }
}
