import { afterCommit } from '../after-commit.ts';
import type { DomainContext } from '../context.ts';
import { pipelineWorkflowId } from '../jobs/ids.ts';
import { markQueued } from './record.ts';

/** `pipeline-<resourceId>` over the resource's current bytes, replacing a run busy with older ones. */
export async function startPipeline(ctx: DomainContext, resourceId: string) {
  // Queued before the start, so the run's own "running" can never be overwritten by this request.
  await markQueued(ctx.em, resourceId, pipelineWorkflowId(resourceId));
  await afterCommit(ctx, () => ctx.jobs.startPipeline(resourceId));
}
