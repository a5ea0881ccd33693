import { ScheduleAlreadyRunning, type Client, type ScheduleDescription } from '@temporalio/client';
import { LINK_CHECK_WORKFLOW_ID } from '../domain/jobs/ids.ts';
import type { LinkCheckOptions } from '../domain/jobs/port.ts';

export const LINK_CHECK_SCHEDULE_ID = 'link-check';

export interface LinkCheckScheduleOptions {
  taskQueue: string;
  intervalMs: number;
  /** Passed to each run. */
  workflowOptions: LinkCheckOptions;
  /** Tests use their own; the service has one schedule per namespace. */
  scheduleId?: string;
}

/**
 * Creates the Temporal Schedule that runs `link-check`, or brings an existing one in line with this
 * process's settings. Every API process calls this at start: the schedule id is unique in the namespace,
 * so however many start together there is one schedule, and a process that finds it already right
 * changes nothing. A run still going when the next is due makes the schedule skip that one.
 */
export async function ensureLinkCheckSchedule(
  client: Client,
  opts: LinkCheckScheduleOptions,
): Promise<'created' | 'updated' | 'unchanged'> {
  const scheduleId = opts.scheduleId ?? LINK_CHECK_SCHEDULE_ID;
  const spec = { intervals: [{ every: opts.intervalMs }] };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'linkCheckWorkflow',
    // The schedule appends the start time to it: `link-check-2026-01-01T00:00:00Z`.
    workflowId: LINK_CHECK_WORKFLOW_ID,
    taskQueue: opts.taskQueue,
    args: [opts.workflowOptions],
  };
  try {
    await client.schedule.create({ scheduleId, spec, action, policies: { overlap: 'SKIP', catchupWindow: '10 minutes' } });
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  const handle = client.schedule.getHandle(scheduleId);
  if (isCurrent(await handle.describe(), opts)) return 'unchanged';
  await handle.update((previous) => ({ ...previous, spec, action, policies: { ...previous.policies, overlap: 'SKIP' } }));
  return 'updated';
}

function isCurrent(schedule: ScheduleDescription, opts: LinkCheckScheduleOptions) {
  const { action, spec } = schedule;
  return (
    action.type === 'startWorkflow' &&
    action.workflowType === 'linkCheckWorkflow' &&
    action.workflowId === LINK_CHECK_WORKFLOW_ID &&
    action.taskQueue === opts.taskQueue &&
    JSON.stringify(action.args) === JSON.stringify([opts.workflowOptions]) &&
    spec.intervals?.length === 1 &&
    spec.intervals[0].every === opts.intervalMs &&
    !spec.calendars?.length &&
    schedule.policies.overlap === 'SKIP'
  );
}
