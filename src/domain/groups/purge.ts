import type { EntityManager } from '@mikro-orm/postgresql';
import { Group, Membership } from '../../entities/index.ts';

export class PurgeAbandoned extends Error {}

/**
 * Steps of the organization purge workflow. Each is idempotent: run twice, or after a crash at any
 * line, it leaves the same result. A purge of an organization restored meanwhile is abandoned.
 */
export async function deleteOrganizationMemberships(em: EntityManager, orgId: string): Promise<number> {
  await assertStillDeleted(em, orgId);
  return em.nativeDelete(Membership, { group: orgId });
}

export async function deleteOrganizationRecord(em: EntityManager, orgId: string): Promise<boolean> {
  await assertStillDeleted(em, orgId);
  return (await em.nativeDelete(Group, { id: orgId, kind: 'organization', state: 'deleted' })) > 0;
}

async function assertStillDeleted(em: EntityManager, orgId: string) {
  const org = await em.findOne(Group, { id: orgId, kind: 'organization' });
  if (org && org.state !== 'deleted') throw new PurgeAbandoned(`organization ${orgId} was restored; purge abandoned`);
}
