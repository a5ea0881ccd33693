import type { MikroORM } from '@mikro-orm/postgresql';
import { listenToChannel } from '../db-listener.ts';
import { reloadDatasetVectors } from './index-loader.ts';
import { SEARCH_CHANNEL } from './points-store.ts';
import type { SearchServices } from './search-services.ts';

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
  let draining: Promise<void> | undefined;
  let stopped = false;

  const drain = async () => {
    while (pending.size > 0 && !stopped) {
      const datasetIds = [...pending].slice(0, RELOAD_BATCH);
      datasetIds.forEach((id) => pending.delete(id));
      await reloadDatasetVectors(orm.em.fork(), search, datasetIds).catch((err) =>
        search.log.warn({ err, datasetIds }, 'reloading datasets into the vector index failed'),
      );
    }
  };

  const kick = () => {
    draining ??= drain().finally(() => {
      draining = undefined;
      if (pending.size > 0 && !stopped) kick();
    });
  };

  const listening = listenToChannel(
    orm.config.get('clientUrl')!,
    SEARCH_CHANNEL,
    {
      onNotify: (datasetId) => {
        pending.add(datasetId);
        kick();
      },
      lostMessage: 'the search change listener lost its connection; reconnecting',
    },
    search.log,
  );
  return {
    // The reload in flight ends before the vector index and the database it reads close after this.
    async stop() {
      stopped = true;
      await listening.stop();
      await draining;
    },
  };
}
