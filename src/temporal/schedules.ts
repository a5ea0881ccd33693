import { ScheduleAlreadyRunning, ScheduleNotFoundError, type Client, type ScheduleDescription } from '@temporalio/client';
import { LINK_CHECK_WORKFLOW_ID, SWEEP_STORAGE_WORKFLOW_ID, harvestScheduleId, harvestWorkflowId } from '../domain/jobs/ids.ts';
import type { LinkCheckOptions, StorageSweepOptions } from '../domain/jobs/port.ts';

export const LINK_CHECK_SCHEDULE_ID = 'link-check';
export const SWEEP_STORAGE_SCHEDULE_ID = 'sweep-storage';

/** A workflow started every `intervalMs`, one schedule per id in the namespace. */
export interface ScheduledJob {
  scheduleId: string;
  workflowType: string;
  /** The schedule appends the start time to it: `link-check-2026-01-01T00:00:00Z`. */
  workflowId: string;
  taskQueue: string;
  intervalMs: number;
  args: unknown[];
}

/**
 * Creates the Temporal Schedule, or brings an existing one in line with this process's settings. Every
 * API process calls this at start: the schedule id is unique in the namespace, so however many start
 * together there is one schedule, and a process that finds it already right changes nothing. A run still
 * going when the next is due makes the schedule skip that one.
 */
export async function ensureSchedule(client: Client, job: ScheduledJob): Promise<'created' | 'updated' | 'unchanged'> {
  const spec = { intervals: [{ every: job.intervalMs }] };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: job.workflowType,
    workflowId: job.workflowId,
    taskQueue: job.taskQueue,
    args: job.args,
  };
  try {
    await client.schedule.create({
      scheduleId: job.scheduleId,
      spec,
      action,
      policies: { overlap: 'SKIP', catchupWindow: '10 minutes' },
    });
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  const handle = client.schedule.getHandle(job.scheduleId);
  if (isCurrent(await handle.describe(), job)) return 'unchanged';
  await handle.update((previous) => ({ ...previous, spec, action, policies: { ...previous.policies, overlap: 'SKIP' } }));
  return 'updated';
}

function isCurrent(schedule: ScheduleDescription, job: ScheduledJob) {
  const { action, spec } = schedule;
  return (
    action.type === 'startWorkflow' &&
    action.workflowType === job.workflowType &&
    action.workflowId === job.workflowId &&
    action.taskQueue === job.taskQueue &&
    JSON.stringify(action.args) === JSON.stringify(job.args) &&
    spec.intervals?.length === 1 &&
    spec.intervals[0].every === job.intervalMs &&
    !spec.calendars?.length &&
    schedule.policies.overlap === 'SKIP'
  );
}

export interface LinkCheckScheduleOptions {
  taskQueue: string;
  intervalMs: number;
  /** Passed to each run. */
  workflowOptions: LinkCheckOptions;
  /** Tests use their own; the service has one schedule per namespace. */
  scheduleId?: string;
}

/** `link-check`: every link of the active datasets, every LINK_CHECK_INTERVAL. */
export const ensureLinkCheckSchedule = (client: Client, opts: LinkCheckScheduleOptions) =>
  ensureSchedule(client, {
    scheduleId: opts.scheduleId ?? LINK_CHECK_SCHEDULE_ID,
    workflowType: 'linkCheckWorkflow',
    workflowId: LINK_CHECK_WORKFLOW_ID,
    taskQueue: opts.taskQueue,
    intervalMs: opts.intervalMs,
    args: [opts.workflowOptions],
  });

/** `sweep-storage`: the orphaned objects removed every STORAGE_SWEEP_INTERVAL. */
export const ensureStorageSweepSchedule = (
  client: Client,
  opts: { taskQueue: string; intervalMs: number; workflowOptions: StorageSweepOptions },
) =>
  ensureSchedule(client, {
    scheduleId: SWEEP_STORAGE_SCHEDULE_ID,
    workflowType: 'sweepStorageWorkflow',
    workflowId: SWEEP_STORAGE_WORKFLOW_ID,
    taskQueue: opts.taskQueue,
    intervalMs: opts.intervalMs,
    args: [opts.workflowOptions],
  });

/**
 * `harvest-schedule-<sourceId>`: the source's harvest on its cron (UTC), each run `harvest-<sourceId>-<time>`;
 * a run still going when the next is due makes the schedule skip that one. Created, or replaced in place.
 */
export async function ensureHarvestSchedule(client: Client, opts: { sourceId: string; cron: string; taskQueue: string }) {
  const scheduleId = harvestScheduleId(opts.sourceId);
  const spec = { cronExpressions: [opts.cron] };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'harvestWorkflow',
    workflowId: harvestWorkflowId(opts.sourceId),
    taskQueue: opts.taskQueue,
    args: [{ sourceId: opts.sourceId }],
  };
  // A schedule deleted a moment ago is gone for describe but still holds its id for create: wait it out.
  for (let attempt = 1; ; attempt++) {
    try {
      await client.schedule.create({ scheduleId, spec, action, policies: { overlap: 'SKIP', catchupWindow: '10 minutes' } });
      return 'created';
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    }
    try {
      await client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec, action }));
      return 'updated';
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError) || attempt >= 50) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Removes a source's schedule; none there is fine. */
export async function removeHarvestSchedule(client: Client, sourceId: string) {
  try {
    await client.schedule.getHandle(harvestScheduleId(sourceId)).delete();
  } catch (err) {
    if (!(err instanceof ScheduleNotFoundError)) throw err;
  }
}
