import type { EntityManager } from '@mikro-orm/postgresql';
import { Group } from '../../entities/index.ts';

/**
 * Steps of the organization purge workflow. Each is idempotent: run twice, or after a crash, the
 * result is the same. Both act only while the organization is still deleted, so one restored meanwhile
 * loses nothing (and restore is refused while the purge runs).
 */

/** Removes up to `pageSize` of the organization's datasets (their resources, tags and category links cascade). */
export async function deleteOrganizationDatasetsPage(em: EntityManager, orgId: string, pageSize: number): Promise<number> {
  const rows = await em.getConnection().execute<{ id: string }[]>(
    `delete from datasets where id in (
       select d.id from datasets d join groups g on g.id = d.owner_org_id
        where g.id = ? and g.kind = 'organization' and g.state = 'deleted'
        limit ?)
     returning id`,
    [orgId, pageSize],
  );
  return rows.length;
}

/** The row goes last, with its memberships through the foreign key cascade. */
export async function deleteDeletedOrganization(em: EntityManager, orgId: string): Promise<boolean> {
  return (await em.nativeDelete(Group, { id: orgId, kind: 'organization', state: 'deleted' })) > 0;
}
