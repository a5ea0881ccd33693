// @temporalio/workflow throws this from startChild but does not re-export it.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  continueAsNew,
  isCancellation,
  proxyActivities,
  startChild,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { SHORT_ACTIVITY } from './activity-options.ts';
import { forEachWithLimit } from './concurrency.ts';
import { pipelineWorkflowId } from '../src/domain/jobs/ids.ts';
import type { PagedRunOptions } from '../src/domain/jobs/port.ts';
import type { pipelineWorkflow } from './pipeline.ts';

const { resourcesToProcessPage } = proxyActivities<Activities>(SHORT_ACTIVITY);

export interface EnqueueAllCounts {
  /** Pipelines this workflow started. */
  started: number;
  /** Resources whose pipeline was already running: joined, not started twice. */
  joined: number;
  succeeded: number;
  failed: number;
}

/** Paging over resources. */
export interface EnqueueAllOptions extends PagedRunOptions {
  /** Pipelines started and awaited at once, so a large catalog does not flood the workers. */
  concurrency?: number;
  counts?: EnqueueAllCounts;
}

/**
 * `enqueue-all`: runs the resource pipeline (`pipeline-<resourceId>`, as a child) for every resource that
 * has something to process, page by page in id order. Children are abandoned rather than cancelled if
 * this workflow stops: a pipeline under way finishes its work. A pipeline's failure is counted, not fatal.
 */
export async function enqueueAllWorkflow({
  pageSize = 100,
  pagesPerRun = 10,
  concurrency = 4,
  afterId = null,
  counts = { started: 0, joined: 0, succeeded: 0, failed: 0 },
}: EnqueueAllOptions = {}): Promise<EnqueueAllCounts> {
  const total = { ...counts };
  let cursor = afterId;
  for (let page = 0; page < pagesPerRun; page++) {
    const ids = await resourcesToProcessPage(cursor, pageSize);
    await forEachWithLimit(ids, concurrency, async (resourceId) => {
      let child;
      try {
        child = await startChild<typeof pipelineWorkflow>('pipelineWorkflow', {
          workflowId: pipelineWorkflowId(resourceId),
          args: [resourceId],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          cancellationType: ChildWorkflowCancellationType.ABANDON,
        });
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) {
          total.joined++;
          return;
        }
        throw err;
      }
      total.started++;
      try {
        await child.result();
        total.succeeded++;
      } catch (err) {
        if (isCancellation(err)) throw err;
        total.failed++;
      }
    });
    if (ids.length < pageSize) return total;
    cursor = ids[ids.length - 1];
  }
  return continueAsNew<typeof enqueueAllWorkflow>({ pageSize, pagesPerRun, concurrency, afterId: cursor, counts: total });
}
