import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray } from '../db.ts';
import { SEARCH_CHANNEL } from './points-store.ts';
import { reloadDatasetVectors } from './index-loader.ts';
import type { SearchServices } from './search-services.ts';
import { VectorIndexError } from './vectors/qdrant.ts';

/**
 * The vector index's outbox. PostgreSQL holds every point and cached vector, and the vector index (Qdrant)
 * a copy of them; when a push of a dataset's vectors fails (Qdrant out of reach), the dataset is noted
 * here, and the vector backlog pushes it again once the index answers: so writes made while Qdrant was
 * down reach it when it is back, without a reindex.
 */

/** Datasets pushed again per round: their points are read and their old vectors dropped together. */
const DRAIN_BATCH = 200;

/** Whether a failure is the vector index out of reach: the push is to be tried again later, not given up. */
export const isIndexUnreachable = (err: unknown) => err instanceof VectorIndexError && err.unreachable;

/**
 * Notes datasets whose vectors the index missed (a later failure for the same dataset renews its note).
 * In id order, as every multi-row upsert here: two notes of the same datasets never wait on each other in a circle.
 */
export async function markIndexPending(em: EntityManager, datasetIds: string[]): Promise<void> {
  if (datasetIds.length === 0) return;
  await em.execute(
    `insert into vector_index_pending (dataset_id, since)
     select d, clock_timestamp() from unnest(?::uuid[]) as d
     on conflict (dataset_id) do update set since = excluded.since`,
    [pgArray([...new Set(datasetIds)].sort())],
  );
}

/**
 * Pushes every noted dataset's vectors again: its points as the database has them now, with their cached
 * vectors, in place of whatever the index holds (a dataset deleted meanwhile loses its vectors). A note is
 * cleared only when no newer failure renewed it. Throws when the index fails again (still down).
 */
export async function drainIndexOutbox(em: EntityManager, search: SearchServices, heartbeat: () => void = () => {}): Promise<number> {
  let drained = 0;
  for (;;) {
    // `since` as text: the note's exact microseconds, which a Date would round away.
    const notes = await em.execute<Array<{ dataset_id: string; since: string }>>(
      'select dataset_id, since::text as since from vector_index_pending order by since, dataset_id limit ?',
      [DRAIN_BATCH],
    );
    if (notes.length === 0) return drained;
    const ids = notes.map((n) => n.dataset_id);
    await reloadDatasetVectors(em, search, ids);
    await em.execute('select pg_notify(?, d::text) from unnest(?::uuid[]) as d', [SEARCH_CHANNEL, pgArray(ids)]);
    await em.execute(
      `delete from vector_index_pending p using unnest(?::uuid[], ?::timestamptz[]) as n(id, since)
        where p.dataset_id = n.id and p.since <= n.since`,
      [pgArray(ids), pgArray(notes.map((n) => n.since))],
    );
    drained += ids.length;
    heartbeat();
    if (notes.length < DRAIN_BATCH) return drained;
  }
}
