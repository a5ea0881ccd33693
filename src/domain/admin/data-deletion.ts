import type { EntityManager } from '@mikro-orm/postgresql';
import type { SearchServices } from '../../search/search-services.ts';
import { removeDatasetVectors } from '../../search/sync.ts';
import type { ObjectStore } from '../../storage/object-store.ts';
import { removeDatasetFiles } from '../resources/file-removal.ts';
import { authorize } from '../../policies/index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';

/** DELETE /admin/data: everything but the accounts goes, as the workflow `delete-all-data`. */
export async function requestDataDeletion(ctx: DomainContext, actor: Actor) {
  authorize(actor, 'site:administer');
  return ctx.workflows.startDataDeletion();
}

/** A page of datasets with their files (resources, tag and category links cascade); idempotent. */
export async function deleteDatasetsPage(em: EntityManager, storage: ObjectStore, search: SearchServices, pageSize: number): Promise<number> {
  const ids = (await em.execute<{ id: string }[]>('select id from datasets order by id limit ?', [pageSize])).map((r) => r.id);
  await removeDatasetFiles(em, storage, ids);
  await removeDatasetVectors(search, ids);
  if (ids.length) await em.execute(`delete from datasets where id in (${ids.map(() => '?').join(', ')})`, ids);
  return ids.length;
}

/** Once no dataset is left: organizations and categories (memberships cascade) and tags. Users stay. */
export async function deleteGroupsAndTags(em: EntityManager): Promise<void> {
  await em.transactional(async (tx) => {
    await tx.execute('delete from groups');
    await tx.execute('delete from tags');
  });
}
