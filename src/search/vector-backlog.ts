import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray } from '../db.ts';
import { contentHash, embedCached } from './embeddings/cache.ts';
import { SEARCH_CHANNEL } from './points-store.ts';
import { reloadDatasetVectors } from './index-loader.ts';
import { drainIndexOutbox, isIndexUnreachable, markIndexPending } from './index-outbox.ts';
import type { SearchServices } from './search-services.ts';

/**
 * The vector backlog: points whose text has no vector under the current model yet. A harvest writes its
 * datasets' points without waiting for the model (sync.ts, `embed: 'later'`), and the `vector-backlog`
 * job embeds them here afterwards, a page at a time in (index, id) order, so the model's pace bounds
 * when a dataset is found by meaning, not when it is found at all.
 */

/** Texts embedded per page: a few seconds of model time, between heartbeats. */
export const BACKLOG_PAGE = 128;
/** Datasets whose vectors are pushed per statement. */
const RELOAD_BATCH = 500;

export interface BacklogCursor {
  index: string;
  id: string;
}

/**
 * Embeds the next page of points without a vector after `after`, pushes their datasets' vectors into
 * the index, and tells the other processes' embedded indexes to reload them. `next` is null once the
 * points are exhausted. Idempotent: an embedded text is skipped by the next look. A pass (`after` null)
 * begins with the datasets the index missed while it was out of reach (index-outbox.ts); a push that
 * fails because the index is out of reach notes its datasets there and throws (`isIndexUnreachable`).
 */
export async function embedBacklogPage(
  em: EntityManager,
  search: SearchServices,
  after: BacklogCursor | null,
  limit = BACKLOG_PAGE,
  heartbeat: () => void = () => {},
): Promise<{ embedded: number; next: BacklogCursor | null }> {
  const { embeddings } = search;
  if (!embeddings) return { embedded: 0, next: null };
  if (after === null) await drainIndexOutbox(em, search, heartbeat);
  const rows = await em.execute<Array<{ index: string; id: string; dataset_id: string; text: string }>>(
    `select sp.index, sp.id, sp.dataset_id, sp.text
       from search_points sp
      where ${after ? '(sp.index, sp.id) > (?, ?::uuid) and' : ''}
            not exists (select 1 from embeddings e where e.model = ? and e.content_hash = sp.content_hash)
      order by sp.index, sp.id
      limit ?`,
    [...(after ? [after.index, after.id] : []), embeddings.model, limit],
  );
  if (rows.length === 0) return { embedded: 0, next: null };
  await embedCached(
    em,
    embeddings,
    rows.map((r) => r.text),
  );
  // Every dataset holding one of these texts, not only this page's: a point later in the walk that shares
  // a text is no longer "without a vector" once its text is cached, and would be passed over.
  const hashes = [...new Set(rows.map((r) => contentHash(r.text)))];
  const holders = await em.execute<Array<{ dataset_id: string }>>(
    'select distinct dataset_id from search_points where content_hash = any(?::text[])',
    [pgArray(hashes)],
  );
  const datasetIds = holders.map((r) => r.dataset_id);
  for (let i = 0; i < datasetIds.length; i += RELOAD_BATCH) {
    const batch = datasetIds.slice(i, i + RELOAD_BATCH);
    try {
      await reloadDatasetVectors(em, search, batch);
    } catch (err) {
      // The texts are embedded and cached now, so the next look would pass over them: the outbox keeps them.
      if (isIndexUnreachable(err)) await markIndexPending(em, datasetIds.slice(i));
      throw err;
    }
    await em.execute('select pg_notify(?, d::text) from unnest(?::uuid[]) as d', [SEARCH_CHANNEL, pgArray(batch)]);
  }
  const last = rows.at(-1)!;
  return { embedded: rows.length, next: rows.length < limit ? null : { index: last.index, id: last.id } };
}
