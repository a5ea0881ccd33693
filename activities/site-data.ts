import type { EntityManager } from '@mikro-orm/postgresql';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { removeDatasetFiles } from '../src/domain/resources/file-removal.ts';
import type { SearchServices } from '../src/search/search-services.ts';
import { REINDEX_BATCH, removeDatasetVectors, syncDatasetsSearch, type SearchSyncDeps } from '../src/search/sync.ts';
import { isIndexUnreachable } from '../src/search/index-outbox.ts';
import { repairUnsyncedDatasets } from '../src/search/search-repair.ts';
import { embedBacklogPage, type BacklogCursor } from '../src/search/vector-backlog.ts';
import { VECTOR_INDEX_UNREACHABLE } from '../workflows/activity-options.ts';
import { INDEX_NAMES } from '../src/search/vectors/vector-index.ts';
import type { ObjectStore } from '../src/storage/object-store.ts';
import type { ActivityServices } from './services.ts';

/** Activities of the site-wide jobs over every dataset: `delete-all-data`, `reindex-metadata` and `vector-backlog`. */
export function siteDataActivities({ orm, storage, config, search }: ActivityServices) {
  return {
    async deleteDatasetsPage(pageSize: number): Promise<number> {
      return deleteDatasetsPage(orm.em.fork(), storage, search, pageSize);
    },
    async deleteGroupsAndTags(): Promise<void> {
      return deleteGroupsAndTags(orm.em.fork());
    },
    async reindexDatasetsPage(afterId: string | null, pageSize: number): Promise<{ count: number; lastId: string | null }> {
      return reindexDatasetsPage({ em: orm.em.fork(), storage, config, search }, afterId, pageSize, () => Context.current().heartbeat());
    },
    /** A page of the vector backlog after `after` (vector-backlog.ts). */
    async embedVectorBacklogPage(after: BacklogCursor | null) {
      const activity = Context.current();
      const heartbeat = setInterval(() => activity.heartbeat(), 10_000);
      try {
        // A pass begins with the datasets a killed process committed without their search documents.
        if (after === null) await repairUnsyncedDatasets({ em: orm.em.fork(), storage, config, search });
        return await embedBacklogPage(orm.em.fork(), search, after, undefined, () => activity.heartbeat());
      } catch (err) {
        // Down for now: the workflow waits and tries again, for as long as it takes (workflows/vector-backlog.ts).
        if (isIndexUnreachable(err))
          throw ApplicationFailure.create({ type: VECTOR_INDEX_UNREACHABLE, message: (err as Error).message, nonRetryable: true });
        throw err;
      } finally {
        clearInterval(heartbeat);
      }
    },
    async pruneVectorIndexes(): Promise<number> {
      return pruneVectorIndexes(orm.em.fork(), search, () => Context.current().heartbeat());
    },
  };
}

/** A page of datasets with their files (resources, tag and category links cascade); idempotent. */
async function deleteDatasetsPage(em: EntityManager, storage: ObjectStore, search: SearchServices, pageSize: number): Promise<number> {
  const ids = (await em.execute<{ id: string }[]>('select id from datasets order by id limit ?', [pageSize])).map((r) => r.id);
  await removeDatasetFiles(em, storage, ids);
  await removeDatasetVectors(search, ids);
  if (ids.length) await em.execute(`delete from datasets where id in (${ids.map(() => '?').join(', ')})`, ids);
  return ids.length;
}

/**
 * Once no dataset is left: organizations and categories (memberships cascade), tags, and the catalog's
 * history with them. Users stay.
 */
async function deleteGroupsAndTags(em: EntityManager): Promise<void> {
  await em.transactional(async (tx) => {
    await tx.execute('delete from groups');
    await tx.execute('delete from tags');
    // The activity triggers of these deletions fire now rather than at commit, so none is written after the history is gone.
    await tx.execute('set constraints all immediate');
    await tx.execute('delete from activities');
  });
}

/** One page of the reindex: every dataset after `afterId`, whatever its state (a draft's traces go). */
async function reindexDatasetsPage(deps: SearchSyncDeps, afterId: string | null, limit: number, heartbeat: () => void) {
  const rows = await deps.em.execute<{ id: string }[]>(
    'select id from datasets where (?::uuid is null or id > ?::uuid) order by id limit ?',
    [afterId, afterId, limit],
  );
  // A batch at a time, as a harvest page does: a few statements and one embedding call per batch, not
  // per dataset (bench hybrid: 1,878 datasets with a warm cache took 29.8 s one by one).
  for (let i = 0; i < rows.length; i += REINDEX_BATCH) {
    await syncDatasetsSearch(
      { ...deps, em: deps.em.fork() },
      rows.slice(i, i + REINDEX_BATCH).map((r) => r.id),
    );
    heartbeat();
  }
  return { count: rows.length, lastId: rows.length === limit ? rows.at(-1)!.id : null };
}

/** Drops the vectors no point backs any more (left by a crash between the two writes, or an old model). */
async function pruneVectorIndexes(em: EntityManager, search: SearchServices, heartbeat: () => void): Promise<number> {
  let pruned = 0;
  for (const index of INDEX_NAMES) {
    const orphans: string[] = [];
    for (let offset = 0; ; offset += 1000) {
      const { points } = await search.vectors.browse(index, { offset, limit: 1000 });
      if (points.length === 0) break;
      const known = await em.execute<{ id: string }[]>('select id from search_points where index = ? and id = any(?::uuid[])', [
        index,
        `{${points.map((p) => p.id).join(',')}}`,
      ]);
      const backed = new Set(known.map((r) => r.id));
      orphans.push(...points.filter((p) => !backed.has(p.id)).map((p) => p.id));
      heartbeat();
    }
    if (orphans.length) await search.vectors.deleteIds(index, orphans);
    pruned += orphans.length;
  }
  return pruned;
}
