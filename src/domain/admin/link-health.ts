import type { LinkCheckStatus } from '../../entities/index.ts';
import { authorize } from '../../policies/index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { page, type PageRequest } from '../pagination.ts';

interface LinkCheckRow {
  resource_id: string;
  dataset_id: string;
  url: string;
  status: LinkCheckStatus;
  http_status: number | null;
  checked_at: Date | string;
  latency_ms: number;
  error: string | null;
}

const presentLinkCheck = (r: LinkCheckRow) => ({
  resourceId: r.resource_id,
  packageId: r.dataset_id,
  url: r.url,
  status: r.status,
  httpStatus: r.http_status,
  checkedAt: new Date(r.checked_at).toISOString(),
  latencyMs: r.latency_ms,
  error: r.error,
});

/**
 * Results of the links that are checked now (link resources of active datasets): a dataset deleted
 * since its last check drops out of the list and the stats, and comes back with it when restored.
 */
const CHECKED_NOW = `from link_checks lc
  join resources r on r.id = lc.resource_id and r.url_type = 'link'
  join datasets d on d.id = r.dataset_id and d.state = 'active'`;

/** GET /admin/health: the latest check of each link, most recently checked first. */
export async function listLinkChecks(ctx: DomainContext, actor: Actor, filter: { status?: LinkCheckStatus }, req: PageRequest) {
  authorize(actor, 'site:administer');
  const where = filter.status ? 'where lc.status = ?' : '';
  const params = filter.status ? [filter.status] : [];
  const [{ count }] = await ctx.em.execute<{ count: number }[]>(`select count(*)::int as count ${CHECKED_NOW} ${where}`, params);
  const rows = await ctx.em.execute<LinkCheckRow[]>(
    `select lc.resource_id, r.dataset_id, lc.url, lc.status, lc.http_status, lc.checked_at, lc.latency_ms, lc.error
       ${CHECKED_NOW}
       ${where}
      order by lc.checked_at desc, lc.resource_id
      limit ? offset ?`,
    [...params, req.limit, req.offset],
  );
  return page(rows.map(presentLinkCheck), count, req);
}

/** GET /admin/health/stats. */
export async function linkCheckStats(ctx: DomainContext, actor: Actor) {
  authorize(actor, 'site:administer');
  const [row] = await ctx.em.execute<
    { total: number; ok: number; broken: number; timeout: number; last_checked_at: Date | string | null }[]
  >(
    `select count(*)::int as total,
            count(*) filter (where lc.status = 'ok')::int as ok,
            count(*) filter (where lc.status = 'broken')::int as broken,
            count(*) filter (where lc.status = 'timeout')::int as timeout,
            max(lc.checked_at) as last_checked_at
       ${CHECKED_NOW}`,
  );
  return {
    total: row.total,
    ok: row.ok,
    broken: row.broken,
    timeout: row.timeout,
    lastCheckedAt: row.last_checked_at ? new Date(row.last_checked_at).toISOString() : null,
  };
}

/** POST /admin/health/check: runs `link-check` now (or joins the one running). */
export async function requestLinkCheck(ctx: DomainContext, actor: Actor) {
  authorize(actor, 'site:administer');
  return ctx.jobs.startLinkCheck({ timeoutMs: ctx.config.linkCheck.timeoutMs });
}
