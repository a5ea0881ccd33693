import { Client, Connection, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { purgeOrganizationWorkflow } from '../../workflows/index.ts';

export const purgeOrgWorkflowId = (orgId: string) => `purge-org-${orgId}`;

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
      const handle = await this.client.workflow.start<typeof purgeOrganizationWorkflow>('purgeOrganizationWorkflow', {
        taskQueue: this.taskQueue,
        workflowId,
        args: [orgId],
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      });
      runId = handle.firstExecutionRunId;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      runId = (await this.client.workflow.getHandle(workflowId).describe()).runId;
    }
    return { workflowId, runId, uiUrl: this.workflowUiUrl(workflowId) };
  }

  /** True while `purge-org-<id>` runs; restoring must not race it. */
  async isOrganizationPurgeRunning(orgId: string): Promise<boolean> {
    try {
      return (await this.client.workflow.getHandle(purgeOrgWorkflowId(orgId)).describe()).status.name === 'RUNNING';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
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
