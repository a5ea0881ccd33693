import type { EntityManager } from '@mikro-orm/postgresql';
import { Resource } from '../../entities/index.ts';
import type { ObjectStore } from '../../storage/object-store.ts';
import { resourcePrefix } from '../../storage/keys.ts';

/** Enough parallel removals to hide the store's latency, few enough not to flood it. */
const PARALLEL_REMOVALS = 8;

export async function removeResourceFiles(storage: ObjectStore, resourceIds: string[]) {
  const queue = [...resourceIds];
  await Promise.all(
    Array.from({ length: Math.min(PARALLEL_REMOVALS, queue.length) }, async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) await storage.removePrefix(resourcePrefix(id));
    }),
  );
}

/**
 * The files of these datasets' resources. Callers remove files before rows: a step cut short between
 * the two finds the same rows again on retry, and a missing file is no error, so nothing is orphaned.
 */
export async function removeDatasetFiles(em: EntityManager, storage: ObjectStore, datasetIds: string[]) {
  if (!datasetIds.length) return;
  const rows = await em.find(Resource, { dataset: { $in: datasetIds } }, { fields: ['id'] });
  await removeResourceFiles(
    storage,
    rows.map((r) => r.id),
  );
}
