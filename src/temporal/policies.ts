import type { ActivityOptions } from '@temporalio/common';

/**
 * Timeouts and retry policies shared by every workflow. Only plain data here: workflows import this
 * file, so it must stay deterministic.
 */
export const RETRY_TRANSIENT = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: 10,
} as const;

/** Short database work: a page of deletes or updates. */
export const SHORT_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: RETRY_TRANSIENT,
};

/**
 * A pipeline step over a file (up to the 50 MB preview, or a link's download): minutes at most, with a
 * heartbeat so that a worker that dies mid-step is noticed within seconds and the step runs elsewhere.
 */
export const PIPELINE_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { ...RETRY_TRANSIENT, maximumAttempts: 5 },
};

/**
 * Work a caller waits for (the DELETE of a draft): a few quick retries, then the workflow fails and the
 * caller hears so, rather than waiting through minutes of backoff.
 */
export const AWAITED_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '2 seconds', maximumAttempts: 3 },
};

/** A walk over the whole object store (the orphan sweep): long, heartbeating as it goes. */
export const STORE_WALK_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: '2 minutes',
  retry: { ...RETRY_TRANSIENT, maximumAttempts: 3 },
};
