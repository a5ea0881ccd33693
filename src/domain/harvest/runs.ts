import { Dataset, type HarvestOutcome, type HarvestRun, type HarvestSource } from '../../entities/index.ts';
import { SourceInvalid } from './errors.ts';
import { syncDatasetsSearch } from '../../search/sync.ts';
import type { DomainContext } from '../context.ts';
import { softDeleteDataset } from '../datasets/lifecycle.ts';

/** Datasets marked removed per transaction. */
const BATCH = 500;

/** What a run did, from its records (one per remote id): the `lastRun` counts of issue 18. */
export interface HarvestRunCounts {
  /** Records read from the source: created + updated + unchanged + failed. */
  seen: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  removed: number;
  /** The first 100 failures, in the order they happened. */
  errors: Array<{ remoteId: string; title: string | null; reason: string | null }>;
}

/**
 * The end of a run. After a full run (every record of the source read, not only those modified since
 * the last run), the source's active datasets that no record of this run names are gone at the source:
 * each gets a `removed` record in this run and, when the source says `deleteRemoved`, is soft-deleted
 * the way DELETE /packages does it (search drops it; a sysadmin can restore it, and a later run that
 * finds the record again brings it back). Without `deleteRemoved` they stay active, only counted.
 * Safe to repeat: a dataset already marked in this run is not marked again, and the search sync of the
 * run's removed datasets runs again (after a crash between the commit and that sync).
 * A full run that read no record at all removes nothing: see refuseEmptyListing.
 */
export async function finishHarvestRun(
  ctx: DomainContext,
  source: HarvestSource,
  run: HarvestRun,
  { full }: { full: boolean },
): Promise<{ removed: number }> {
  if (full) await refuseEmptyListing(ctx, source, run);
  if (full) {
    for (;;) {
      const em = ctx.em.fork();
      const marked = await em.transactional(async (tx) => {
        const ids: Array<{ id: string }> = await tx.execute(
          `select d.id from datasets d
            where d.harvest_source_id = ? and d.state = 'active'
              and not exists (select 1 from harvest_run_records r where r.run_id = ? and r.remote_id = d.harvest_remote_id)
            order by d.id limit ?`,
          [source.id, run.id, BATCH],
        );
        const gone = ids.length ? await tx.find(Dataset, { id: { $in: ids.map((r) => r.id) } }) : [];
        for (const d of gone) {
          await tx.execute(
            `insert into harvest_run_records (run_id, remote_id, outcome, dataset_id, title, reason, at)
             values (?, ?, 'removed', ?, ?, null, now()) on conflict (run_id, remote_id) do nothing`,
            [run.id, d.harvestRemoteId, d.id, d.title?.slice(0, 1000) ?? null],
          );
          if (source.deleteRemoved) softDeleteDataset(d);
        }
        await tx.flush();
        return gone.length;
      });
      if (marked < BATCH) break;
    }
  }

  const removed: Array<{ dataset_id: string | null; state: string | null }> = await ctx.em.execute(
    `select r.dataset_id, d.state from harvest_run_records r left join datasets d on d.id = r.dataset_id
      where r.run_id = ? and r.outcome = 'removed'`,
    [run.id],
  );
  const deleted = removed.flatMap((row) => (row.dataset_id && row.state === 'deleted' ? [row.dataset_id] : []));
  for (let i = 0; i < deleted.length; i += 500) await syncDatasetsSearch(ctx, deleted.slice(i, i + 500));
  await announceRunVectors(ctx);
  return { removed: removed.length };
}

/**
 * A run's pages write their datasets' points without vectors (found by keywords at once); when the run
 * ends, succeeded or failed, the vector backlog job embeds the new texts. Not earlier: on a small
 * machine the model takes every core it is given, and would halve the run's pace.
 */
export async function announceRunVectors(ctx: DomainContext) {
  if (ctx.search.embeddings) await ctx.jobs.announceVectorBacklog();
}

export async function harvestRunCounts(ctx: DomainContext, runId: string): Promise<HarvestRunCounts> {
  const rows: Array<{ outcome: HarvestOutcome; n: number }> = await ctx.em.execute(
    `select outcome, count(*)::int as n from harvest_run_records where run_id = ? group by outcome`,
    [runId],
  );
  const count = (o: HarvestOutcome) => rows.find((r) => r.outcome === o)?.n ?? 0;
  const errors: Array<{ remote_id: string; title: string | null; reason: string | null }> = await ctx.em.execute(
    `select remote_id, title, reason from harvest_run_records where run_id = ? and outcome = 'failed' order by at, remote_id limit 100`,
    [runId],
  );
  const [created, updated, unchanged, failed, removed] = (['created', 'updated', 'unchanged', 'failed', 'removed'] as const).map(count);
  return {
    seen: created! + updated! + unchanged! + failed!,
    created: created!,
    updated: updated!,
    unchanged: unchanged!,
    failed: failed!,
    removed: removed!,
    errors: errors.map((e) => ({ remoteId: e.remote_id, title: e.title, reason: e.reason })),
  };
}

/**
 * A source that lists nothing while datasets from it are active here is far more often broken (an empty
 * data.json served during a deploy, an API now behind a login, a catalog moved) than emptied: the run
 * fails saying so, and those datasets stay as they are. A source really emptied is detached or deleted
 * with ?purge=true by a sysadmin instead.
 */
async function refuseEmptyListing(ctx: DomainContext, source: HarvestSource, run: HarvestRun) {
  const [{ seen, kept }]: Array<{ seen: number; kept: number }> = await ctx.em.execute(
    `select (select count(*)::int from harvest_run_records where run_id = ? and outcome <> 'removed') as seen,
            (select count(*)::int from datasets where harvest_source_id = ? and state = 'active') as kept`,
    [run.id, source.id],
  );
  if (seen === 0 && kept > 0) {
    throw new SourceInvalid(
      `the source listed no datasets at all, so the ${kept} active datasets harvested from it are kept rather than counted removed; ` +
        'if it really is empty now, delete the source (with ?purge=true to remove its datasets)',
    );
  }
}
