import type { EntityManager } from '@mikro-orm/postgresql';
import type { SearchServices } from '../../search/search-services.ts';
import { removeDatasetVectors } from '../../search/sync.ts';
import { Group } from '../../entities/index.ts';
import type { ObjectStore } from '../../storage/object-store.ts';
import { removeDatasetFiles } from '../resources/file-removal.ts';

/**
 * Steps of the organization purge workflow. Each is idempotent: run twice, or after a crash, the
 * result is the same. Both act only while the organization is still deleted, so one restored meanwhile
 * loses nothing (and restore is refused while the purge runs).
 */

/**
 * Removes up to `pageSize` of the organization's datasets with their files (their resources, tags and
 * category links cascade).
 */
export async function deleteOrganizationDatasetsPage(
  em: EntityManager,
  storage: ObjectStore,
  search: SearchServices,
  orgId: string,
  pageSize: number,
): Promise<number> {
  const rows = await em.execute<{ id: string }[]>(
    `select d.id from datasets d join groups g on g.id = d.owner_org_id
      where g.id = ? and g.kind = 'organization' and g.state = 'deleted'
      order by d.id limit ?`,
    [orgId, pageSize],
  );
  const ids = rows.map((r) => r.id);
  await removeDatasetFiles(em, storage, ids);
  await removeDatasetVectors(search, ids);
  // A transaction of its own: the history's triggers read who purged from it (src/domain/activity/actor-scope.ts).
  if (ids.length) await em.transactional((tx) => tx.execute(`delete from datasets where id in (${ids.map(() => '?').join(', ')})`, ids));
  return ids.length;
}

/**
 * The row goes last, with its memberships through the foreign key cascade. True once it is gone, also for
 * an attempt retried after one that removed it was cut short before saying so (its worker killed); false
 * for an organization restored meanwhile, which stays.
 */
export async function deleteDeletedOrganization(em: EntityManager, orgId: string): Promise<boolean> {
  if ((await em.transactional((tx) => tx.nativeDelete(Group, { id: orgId, kind: 'organization', state: 'deleted' }))) > 0) return true;
  return (await em.count(Group, { id: orgId })) === 0;
}
