import { ActivityFailure, ApplicationFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { PIPELINE_ACTIVITY, SHORT_ACTIVITY } from './activity-options.ts';

const { pipelineStart, pipelineFinish, pipelineIndex } = proxyActivities<Activities>(SHORT_ACTIVITY);
const { pipelineFetch, pipelineInspect, pipelinePreview, pipelineText } = proxyActivities<Activities>(PIPELINE_ACTIVITY);

/** The message a user should read: the activity's own failure, not Temporal's wrapper around it. */
function reason(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}

/**
 * `pipeline-<resourceId>`: fetch a link's bytes, inspect the bytes, detect the format from the content, build the typed
 * Parquet preview and schema of a CSV/TSV, extract text, then re-index the dataset. Each step records
 * itself in the resource's extras; a failure is recorded with its message and fails the run, so the
 * job list shows it and the Web UI can retry it.
 */
export async function pipelineWorkflow(resourceId: string): Promise<{ status: 'succeeded' | 'skipped' }> {
  const { workflowId, runId } = workflowInfo();
  const plan = await pipelineStart(resourceId, workflowId, runId);
  if (!plan) return { status: 'skipped' };
  try {
    if (plan.steps.includes('fetch')) await pipelineFetch(resourceId, runId);
    const inspected = await pipelineInspect(resourceId, runId);
    if (inspected.tabular) await pipelinePreview(resourceId, runId, inspected.tabular);
    if (inspected.text) await pipelineText(resourceId, runId, inspected.tabular);
    await pipelineIndex(resourceId, runId);
  } catch (err) {
    await pipelineFinish(resourceId, runId, reason(err));
    throw ApplicationFailure.nonRetryable(reason(err), 'PipelineFailed');
  }
  await pipelineFinish(resourceId, runId, null);
  return { status: 'succeeded' };
}
