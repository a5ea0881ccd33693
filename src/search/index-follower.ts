import type { MikroORM } from '@mikro-orm/postgresql';
import { listenToChannel } from '../db-listener.ts';
import { loadVectors } from './embeddings/cache.ts';
import { pointsOfDatasets } from './points-store.ts';
import type { SearchServices } from './search-services.ts';
import { INDEX_NAMES } from './vectors/vector-index.ts';

/** The channel a trigger on `search_points` notifies with a dataset id (migration SearchNotify). */
export const SEARCH_CHANNEL = 'almanac_search';

/** Datasets' points as the database now has them, with cached vectors, replacing what the index held. */
async function reloadDatasets(orm: MikroORM, search: SearchServices, datasetIds: string[]) {
  const em = orm.em.fork();
  const points = await pointsOfDatasets(em, datasetIds);
  const vectors = search.embeddings
    ? await loadVectors(
        em,
        search.embeddings.model,
        points.map((p) => p.contentHash),
      )
    : new Map();
  for (const index of INDEX_NAMES) {
    const batch = points.flatMap((p) => {
      const vector = vectors.get(p.contentHash);
      return p.index === index && vector ? [{ id: p.id, vector, payload: p.payload }] : [];
    });
    for (const datasetId of datasetIds) await search.vectors.deleteByDataset(index, datasetId);
    if (batch.length === 0) continue;
    await search.ensureIndex(index, batch[0]!.vector.length);
    await search.vectors.upsert(index, batch);
  }
}

/** Datasets reloaded together: a harvest notifies hundreds in a row, one statement loads a batch of them. */
const RELOAD_BATCH = 100;

/**
 * Keeps this process's embedded vector index in line with changes made anywhere (a worker in another
 * process, another API replica): LISTEN on a dedicated connection, reload the notified datasets, a
 * batch at a time, each id once however often it was notified meanwhile. A lost connection is
 * re-established; what changed in between is caught by the next reindex or restart (the stats show the
 * drift).
 */
export function followIndexChanges(orm: MikroORM, search: SearchServices): { stop(): Promise<void> } {
  const pending = new Set<string>();
  let draining = false;

  const drain = async () => {
    if (draining) return;
    draining = true;
    try {
      while (pending.size > 0) {
        const datasetIds = [...pending].slice(0, RELOAD_BATCH);
        datasetIds.forEach((id) => pending.delete(id));
        await reloadDatasets(orm, search, datasetIds).catch((err) =>
          search.log.warn({ err, datasetIds }, 'reloading datasets into the vector index failed'),
        );
      }
    } finally {
      draining = false;
    }
  };

  return listenToChannel(
    orm.config.get('clientUrl')!,
    SEARCH_CHANNEL,
    {
      onNotify: (datasetId) => {
        pending.add(datasetId);
        void drain();
      },
      lostMessage: 'the search change listener lost its connection; reconnecting',
    },
    search.log,
  );
}
