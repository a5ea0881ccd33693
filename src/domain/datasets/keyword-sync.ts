import { syncDatasetsSearch } from '../../search/sync.ts';
import type { DomainContext } from '../context.ts';
import { searchSyncFailed } from '../errors.ts';

/**
 * A new dataset into search at the database's pace, as a harvest brings its records in: its keyword
 * document and points are written before the request answers, and their vectors follow through the
 * vector backlog (src/search/vector-backlog.ts), so creating datasets is not held to the model's pace.
 * A failed write is the publish sync's failure (503 `search_sync_failed`): POST /publish re-runs the
 * whole sync, vectors included. The backlog is announced once creations pause, so a bulk load is embedded
 * after it; that is best effort: the next announcement embeds every point still without a vector, and
 * /admin/search/stats shows the drift meanwhile.
 */
export async function syncKeywordsNow(ctx: DomainContext, datasetId: string): Promise<void> {
  try {
    await syncDatasetsSearch(ctx, [datasetId], { embed: 'later' });
  } catch (err) {
    ctx.log.warn({ err, datasetId }, 'a new dataset could not be written into search');
    throw searchSyncFailed();
  }
  if (!ctx.search.embeddings) return;
  await ctx.jobs
    .announceVectorBacklog()
    .catch((err: unknown) =>
      ctx.log.warn({ err, datasetId }, 'the vector backlog could not be told of a new dataset; the next announcement covers it'),
    );
}
