import type { EntityManager } from '@mikro-orm/postgresql';
import { Group } from '../../entities/index.ts';

/**
 * The last step of the organization purge workflow: the row goes, and its memberships with it through
 * the foreign key cascade, in one statement. Idempotent: run twice, or after a crash, the result is the
 * same; an organization restored meanwhile is not deleted, so nothing of it is lost.
 */
export async function deleteDeletedOrganization(em: EntityManager, orgId: string): Promise<boolean> {
  return (await em.nativeDelete(Group, { id: orgId, kind: 'organization', state: 'deleted' })) > 0;
}
