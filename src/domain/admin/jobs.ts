import { authorize } from '../../policies/index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import type { JobFilter } from '../jobs/port.ts';
import type { PageRequest } from '../pagination.ts';

/** GET /admin/jobs: this deployment's job runs, running first, then the most recently closed. */
export async function listAdminJobs(ctx: DomainContext, actor: Actor, filter: JobFilter, req: PageRequest) {
  authorize(actor, 'site:administer');
  return ctx.jobs.list(filter, req);
}

/** GET /admin/jobs/stats. */
export async function adminJobStats(ctx: DomainContext, actor: Actor) {
  authorize(actor, 'site:administer');
  return ctx.jobs.stats();
}

/** POST /admin/jobs/enqueue-all: the pipeline for every resource, as the workflow `enqueue-all`. */
export async function requestEnqueueAll(ctx: DomainContext, actor: Actor) {
  authorize(actor, 'site:administer');
  return ctx.jobs.startEnqueueAll();
}
