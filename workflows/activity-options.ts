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

/**
 * A page of the vector backlog: seconds of model time, a heartbeat between its chunks (every 10 s), so a
 * worker killed mid-page is noticed within 30 s and the page runs elsewhere; a model that cannot load
 * fails the job after a few tries, and the next harvest's signal starts it again.
 */
export const VECTOR_BACKLOG_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { ...RETRY_TRANSIENT, maximumAttempts: 5 },
};

/**
 * The failure type a backlog page throws when the vector index is out of reach: the workflow waits
 * VECTOR_INDEX_RETRY and tries again instead of failing, so what was written meanwhile reaches the index.
 */
export const VECTOR_INDEX_UNREACHABLE = 'VectorIndexUnreachable';
export const VECTOR_INDEX_RETRY = '10 seconds';

/** A walk over the whole object store (the orphan sweep): long, heartbeating as it goes. */
export const STORE_WALK_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: '2 minutes',
  retry: { ...RETRY_TRANSIENT, maximumAttempts: 3 },
};

/**
 * Retries of a harvest page when the source is down for now (`SourceUnavailable`: a 5xx, a timeout):
 * 5 attempts over about half a minute, then the run fails saying so. A source that answered with
 * something no retry changes (`SourceInvalid`) fails the run at once.
 */
export const HARVEST_SOURCE_RETRY = {
  initialInterval: '2 seconds',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: 5,
  nonRetryableErrorTypes: ['SourceInvalid'],
};

/**
 * One page of a harvest source, read and applied record by record: a heartbeat per record, so a worker
 * that dies mid-page is noticed within seconds and the page is read again elsewhere (the records it
 * had applied are found done, not applied twice).
 */
export const HARVEST_PAGE_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '20 seconds',
  retry: HARVEST_SOURCE_RETRY,
};

/**
 * The start and the end of a harvest run (its row; the end also marks what the source no longer has):
 * heartbeating as a page does, so that a worker killed in one of them hands it on within seconds, not
 * after the 30 minutes an end over a large source may take.
 */
export const HARVEST_BOOKKEEPING_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '20 seconds',
  retry: RETRY_TRANSIENT,
};

/** Pages per workflow run before continue-as-new, so a long source keeps a small history. */
export const HARVEST_PAGES_PER_RUN = 50;
