import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { HarvestRun, HarvestSource } from '../../entities/index.ts';

/**
 * A harvest run's row from start to end: begun by the workflow's first activity (and by the request that
 * started it, so that `lastRun` shows it at once), idempotent on the Temporal run id; ended by its last.
 */

/** What a run's pages need to know: its row, and whether it asks the source for everything. */
export interface BegunRun {
  runRowId: string;
  sourceId: string;
  /** Incremental runs ask only for records modified since then (ISO 8601); null for a full run. */
  since: string | null;
  full: boolean;
}

/** A CKAN source is read in full at least this often, so that what it removed is found (and soft-deleted). */
export const FULL_RUN_EVERY_MS = 7 * 24 * 3600 * 1000;
/** Incremental runs ask from this long before the last run's start: the source's clock and search index may lag. */
export const SINCE_MARGIN_MS = 3600 * 1000;

/**
 * The row of the run `runId` (the first run of its continue-as-new chain), created when missing with
 * status `running`. A CKAN run is incremental (records modified since the start of the last succeeded
 * run, less an hour's margin) unless it is asked to be `full`, or the source had no succeeded full run in
 * the last 7 days, or the source was changed (a PUT: among others its url or type) after the start of its
 * last succeeded run: then it is full, and a full run is what finds the datasets removed at the source.
 * DCAT-US and DCAT-AP documents have no such query, so every run of theirs is full. Rows of the source
 * still `running` under another run id belong to runs that ended without saying so (terminated, lost):
 * they become `failed`. Null when the source is gone.
 */
export async function beginHarvestRun(
  em: EntityManager,
  sourceId: string,
  workflowId: string,
  runId: string,
  opts: { full?: boolean } = {},
): Promise<BegunRun | null> {
  const source = await em.findOne(HarvestSource, { id: sourceId });
  if (!source) return null;
  const existing = await em.findOne(HarvestRun, { runId });
  if (existing) return begun(existing, sourceId);

  const now = new Date();
  let since: Date | null = null;
  if (source.type === 'ckan' && !opts.full) {
    const succeeded = { source: sourceId, status: 'succeeded' as const };
    const last = await em.findOne(HarvestRun, succeeded, { orderBy: { startedAt: 'desc' } });
    const lastFull = await em.findOne(
      HarvestRun,
      { ...succeeded, since: null, startedAt: { $gte: new Date(now.getTime() - FULL_RUN_EVERY_MS) } },
      { orderBy: { startedAt: 'desc' } },
    );
    if (last && lastFull && last.startedAt >= source.updatedAt) since = new Date(last.startedAt.getTime() - SINCE_MARGIN_MS);
  }
  await em.nativeUpdate(
    HarvestRun,
    { source: sourceId, status: 'running', runId: { $ne: runId } },
    { status: 'failed', finishedAt: new Date(), reason: 'The run ended without finishing (terminated, or replaced by a newer run).' },
  );
  const row = em.create(HarvestRun, { source: sourceId, workflowId, runId, status: 'running', startedAt: now, since, pages: 0 });
  try {
    await em.flush();
    return begun(row, sourceId);
  } catch (err) {
    // The request and the workflow began it at the same moment: theirs is the row.
    if (!(err instanceof UniqueConstraintViolationException)) throw err;
    const theirs = await em.fork().findOneOrFail(HarvestRun, { runId });
    return begun(theirs, sourceId);
  }
}

const begun = (row: HarvestRun, sourceId: string): BegunRun => ({
  runRowId: row.id,
  sourceId,
  since: row.since?.toISOString() ?? null,
  full: row.since === null,
});

/** The pages read so far: never goes back when a page is read again after a retry. */
export async function recordRunPages(em: EntityManager, runRowId: string, pages: number) {
  await em.nativeUpdate(HarvestRun, { id: runRowId, pages: { $lt: pages } }, { pages });
}

/**
 * The run ended: succeeded, or failed with a reason an operator can act on. By the row alone: a run that
 * was marked failed meanwhile (replaced, retried from the Temporal UI) still ends with its true status.
 */
export async function endHarvestRun(
  em: EntityManager,
  runRowId: string,
  outcome: { status: 'succeeded' } | { status: 'failed'; reason: string },
) {
  const reason = outcome.status === 'failed' ? outcome.reason.slice(0, 1000) : null;
  await em.nativeUpdate(HarvestRun, { id: runRowId }, { status: outcome.status, finishedAt: new Date(), reason });
}
