import { authorize } from '../../policies/index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';

/** DELETE /admin/data: everything but the accounts goes, as the workflow `delete-all-data`. */
export async function requestDataDeletion(ctx: DomainContext, actor: Actor) {
  authorize(actor, 'site:administer');
  return ctx.jobs.startDataDeletion();
}
