import { authorize } from '../../policies/index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { sweepOrphans } from '../resources/orphan-sweep.ts';

/** GET (report only) and DELETE (remove those older than `olderThanSeconds`) /admin/storage/orphans. */
export async function storageOrphans(ctx: DomainContext, actor: Actor, options: { remove: boolean; olderThanSeconds: number }) {
  authorize(actor, 'site:administer');
  return sweepOrphans({ em: ctx.em, storage: ctx.storage, dataDir: ctx.config.dataDir, retention: ctx.config.versions.retention }, options);
}
