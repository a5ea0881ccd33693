import { Batches } from '../../search/batches.ts';
import type { DatasetForSearch } from '../../search/documents.ts';
import type { SearchServices } from '../../search/search-services.ts';
import { syncDatasetsSearch } from '../../search/sync.ts';
import type { DomainContext } from '../context.ts';
import { searchSyncFailed } from '../errors.ts';

/** New datasets written into search together: a statement's JSON of their points stays small. */
const SYNC_BATCH = 32;

/** One group commit per process (its search services): requests of any caller share it. */
const batchesOf = new WeakMap<SearchServices, Batches<{ ctx: DomainContext; dataset: DatasetForSearch }>>();

function batches(search: SearchServices) {
  let found = batchesOf.get(search);
  if (!found) {
    found = new Batches(async (items) => {
      // The first request's services and settings, in a unit of work of the batch's own.
      const ctx = items[0]!.ctx;
      const known = new Map(items.map(({ dataset }) => [dataset.id, dataset]));
      await syncDatasetsSearch({ ...ctx, em: ctx.em.fork() }, [...known.keys()], { embed: 'later', known });
    }, SYNC_BATCH);
    batchesOf.set(search, found);
  }
  return found;
}

/**
 * A new dataset into search at the database's pace, as a harvest brings its records in: its keyword
 * document and points are written before the request answers, and their vectors follow through the
 * vector backlog (src/search/vector-backlog.ts), so creating datasets is not held to the model's pace.
 * Datasets created at the same time are written together (group commit). A failed write is the publish
 * sync's failure (503 `search_sync_failed`): POST /publish re-runs the whole sync, vectors included. The
 * backlog is announced once creations pause, so a bulk load is embedded after it; that is best effort:
 * the next announcement embeds every point still without a vector, and /admin/search/stats shows the
 * drift meanwhile. The caller hands over the dataset as it committed it, so it is not read back.
 */
export async function syncKeywordsNow(ctx: DomainContext, dataset: DatasetForSearch): Promise<void> {
  try {
    await batches(ctx.search).add({ ctx, dataset });
  } catch (err) {
    ctx.log.warn({ err, datasetId: dataset.id }, 'a new dataset could not be written into search');
    throw searchSyncFailed();
  }
  if (!ctx.search.embeddings) return;
  ctx.jobs.announceVectorBacklogSoon((err: unknown) =>
    ctx.log.warn({ err }, 'the vector backlog could not be told of new datasets; the next announcement covers them'),
  );
}
