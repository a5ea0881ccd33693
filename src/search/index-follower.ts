import type { MikroORM } from '@mikro-orm/postgresql';
import { loadVectors } from './embeddings/cache.ts';
import { pointsOfDataset } from './points-store.ts';
import type { SearchServices } from './search-services.ts';
import { INDEX_NAMES } from './vectors/vector-index.ts';

/** The channel a trigger on `search_points` notifies with a dataset id (migration SearchNotify). */
export const SEARCH_CHANNEL = 'almanac_search';
const RECONNECT_MS = 2_000;

interface Listener {
  query(sql: string): Promise<unknown>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): void;
  on(event: 'error' | 'end', listener: (err?: Error) => void): void;
  removeAllListeners(event?: string): void;
}

/**
 * Stops listening on a connection for good. It keeps a no-op error listener: a connection that dies
 * later (PostgreSQL stopping first, as on Ctrl-C) still emits `error`, and an unheard one would crash.
 */
function detach(connection: Listener) {
  connection.removeAllListeners();
  connection.on('error', () => undefined);
}

/** One dataset's points as the database now has them, with cached vectors, replacing what the index held. */
async function reloadDataset(orm: MikroORM, search: SearchServices, datasetId: string) {
  const em = orm.em.fork();
  const points = await pointsOfDataset(em, datasetId);
  const vectors = search.embeddings ? await loadVectors(em, search.embeddings.model, points.map((p) => p.contentHash)) : new Map();
  for (const index of INDEX_NAMES) {
    const batch = points.flatMap((p) => {
      const vector = vectors.get(p.contentHash);
      return p.index === index && vector ? [{ id: p.id, vector, payload: p.payload }] : [];
    });
    await search.vectors.deleteByDataset(index, datasetId);
    if (batch.length === 0) continue;
    await search.ensureIndex(index, batch[0]!.vector.length);
    await search.vectors.upsert(index, batch);
  }
}

/**
 * Keeps this process's embedded vector index in line with changes made anywhere (a worker in another
 * process, another API replica): LISTEN on a dedicated connection, reload each notified dataset, one at
 * a time, each id once however often it was notified meanwhile. A lost connection is re-established;
 * what changed in between is caught by the next reindex or restart (the stats show the drift).
 */
export function followIndexChanges(orm: MikroORM, search: SearchServices): { stop(): Promise<void> } {
  const client = orm.em.getKnex().client;
  const pending = new Set<string>();
  let draining = false;
  let stopped = false;
  let connection: Listener | null = null;
  let retry: NodeJS.Timeout | undefined;

  const drain = async () => {
    if (draining) return;
    draining = true;
    try {
      for (const datasetId of pending) {
        pending.delete(datasetId);
        await reloadDataset(orm, search, datasetId).catch((err) => search.log.warn({ err, datasetId }, 'reloading a dataset into the vector index failed'));
      }
    } finally {
      draining = false;
    }
  };

  const connect = async () => {
    if (stopped) return;
    try {
      const acquired = (await client.acquireConnection()) as Listener;
      if (stopped) {
        await client.releaseConnection(acquired);
        return;
      }
      connection = acquired;
      acquired.on('notification', (message) => {
        if (message.channel !== SEARCH_CHANNEL || !message.payload) return;
        pending.add(message.payload);
        void drain();
      });
      const lost = (err?: Error) => {
        if (stopped || connection !== acquired) return;
        search.log.warn({ err }, 'the search change listener lost its connection; reconnecting');
        detach(acquired);
        connection = null;
        void client.releaseConnection(acquired).catch(() => undefined);
        retry = setTimeout(() => void connect(), RECONNECT_MS);
      };
      acquired.on('error', lost);
      acquired.on('end', lost);
      await acquired.query(`listen ${SEARCH_CHANNEL}`);
    } catch (err) {
      search.log.warn({ err }, 'the search change listener could not connect; retrying');
      retry = setTimeout(() => void connect(), RECONNECT_MS);
    }
  };
  void connect();

  return {
    async stop() {
      stopped = true;
      clearTimeout(retry);
      const held = connection;
      connection = null;
      if (held) {
        detach(held);
        await held.query(`unlisten ${SEARCH_CHANNEL}`).catch(() => undefined);
        await client.releaseConnection(held).catch(() => undefined);
      }
    },
  };
}
