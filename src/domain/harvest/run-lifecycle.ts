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

/**
 * The row of the run `runId` (the first run of its continue-as-new chain), created when missing with
 * status `running`. CKAN sources run incrementally from the start of their last succeeded run (unless
 * `full`); DCAT-US and DCAT-AP documents have no such query, so every run of theirs is full. Rows of the
 * source still `running` under another run id belong to runs that ended without saying so (terminated,
 * lost): they become `failed`. Null when the source is gone.
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

  let since: Date | null = null;
  if (source.type === 'ckan' && !opts.full) {
    const last = await em.findOne(HarvestRun, { source: sourceId, status: 'succeeded' }, { orderBy: { startedAt: 'desc' } });
    since = last?.startedAt ?? null;
  }
  await em.nativeUpdate(
    HarvestRun,
    { source: sourceId, status: 'running', runId: { $ne: runId } },
    { status: 'failed', finishedAt: new Date(), reason: 'The run ended without finishing (terminated, or replaced by a newer run).' },
  );
  const row = em.create(HarvestRun, { source: sourceId, workflowId, runId, status: 'running', startedAt: new Date(), since, pages: 0 });
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

/** The run ended: succeeded, or failed with a reason an operator can act on. Only a running row changes. */
export async function endHarvestRun(
  em: EntityManager,
  runRowId: string,
  outcome: { status: 'succeeded' } | { status: 'failed'; reason: string },
) {
  const reason = outcome.status === 'failed' ? outcome.reason.slice(0, 1000) : null;
  await em.nativeUpdate(HarvestRun, { id: runRowId, status: 'running' }, { status: outcome.status, finishedAt: new Date(), reason });
}
