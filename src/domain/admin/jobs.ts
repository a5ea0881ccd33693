import type { EntityManager } from '@mikro-orm/postgresql';
import { authorize } from '../../policies/index.ts';
import { jobStats, listJobs, startEnqueueAll, type JobFilter } from '../../temporal/admin-jobs.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import type { PageRequest } from '../pagination.ts';

/** GET /admin/jobs: this deployment's workflow runs from Temporal's visibility store, running first, then the most recently closed. */
export async function listAdminJobs(ctx: DomainContext, actor: Actor, filter: JobFilter, req: PageRequest) {
  authorize(actor, 'site:administer');
  return listJobs(ctx.workflows, ctx.config.temporal.taskQueue, filter, req);
}

/** GET /admin/jobs/stats. */
export async function adminJobStats(ctx: DomainContext, actor: Actor) {
  authorize(actor, 'site:administer');
  return jobStats(ctx.workflows, ctx.config.temporal.taskQueue);
}

/** POST /admin/jobs/enqueue-all: the pipeline for every resource, as the workflow `enqueue-all`. */
export async function requestEnqueueAll(ctx: DomainContext, actor: Actor) {
  authorize(actor, 'site:administer');
  return startEnqueueAll(ctx.workflows, ctx.config.temporal.taskQueue);
}

/**
 * A page of the resources the pipeline has something to work on, after `afterId` in id order: uploads
 * whose bytes arrived (their URL is set then) and links, in datasets that are not deleted or being deleted.
 */
export async function resourcesToProcessPage(em: EntityManager, afterId: string | null, limit: number): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `select r.id from resources r join datasets d on d.id = r.dataset_id
      where r.url is not null and d.state <> 'deleted' and not d.deletion_incomplete
        and (?::uuid is null or r.id > ?::uuid)
      order by r.id limit ?`,
    [afterId, afterId, limit],
  );
  return rows.map((r) => r.id);
}
