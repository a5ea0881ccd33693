import { REINDEX_BATCH, syncDatasetsSearch, type SearchSyncDeps } from './sync.ts';

/**
 * Active datasets committed without their keyword document: a creation commits its dataset, then writes
 * it into search (src/domain/datasets/keyword-sync.ts), so a process killed between the two leaves a
 * dataset found only by the likeness of its name and title: not by its description, tags or meaning. These are synced here (their vectors follow through the
 * backlog), found through a partial index (`datasets_unsynced_index`), so a look costs nothing when there
 * are none. Run when an API process starts and at the start of each vector backlog pass; idempotent, so a
 * dataset whose creation is still writing it is only written twice.
 */
export async function repairUnsyncedDatasets(deps: SearchSyncDeps): Promise<number> {
  const tried = new Set<string>();
  for (;;) {
    const rows = await deps.em.execute<Array<{ id: string }>>(
      `select id from datasets where state = 'active' and search_vector is null order by id limit ?`,
      [REINDEX_BATCH],
    );
    // Ids already synced once and back again (deleted meanwhile, or a document that stays empty) end the walk.
    const ids = rows.map((r) => r.id).filter((id) => !tried.has(id));
    if (ids.length === 0) return tried.size;
    await syncDatasetsSearch(deps, ids, { embed: 'later' });
    ids.forEach((id) => tried.add(id));
  }
}
