import type { EntityManager } from '@mikro-orm/postgresql';
import { authorize } from '../../policies/index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';

/** DELETE /admin/data: everything but the accounts goes, as the workflow `delete-all-data`. */
export async function requestDataDeletion(ctx: DomainContext, actor: Actor) {
  authorize(actor, 'site:administer');
  return ctx.workflows.startDataDeletion();
}

/** A page of datasets (resources, tag and category links cascade); idempotent. */
export async function deleteDatasetsPage(em: EntityManager, pageSize: number): Promise<number> {
  const rows = await em.execute<{ id: string }[]>(
    'delete from datasets where id in (select id from datasets limit ?) returning id',
    [pageSize],
  );
  return rows.length;
}

/** Once no dataset is left: organizations and categories (memberships cascade) and tags. Users stay. */
export async function deleteGroupsAndTags(em: EntityManager): Promise<void> {
  await em.transactional(async (tx) => {
    await tx.execute('delete from groups');
    await tx.execute('delete from tags');
  });
}
