import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../src/config.ts';
import type { LinkCheckStatus } from '../src/entities/index.ts';
import { probeLink, type LinkProbe } from '../src/net/link-probe.ts';

/** Activities of `enqueue-all` and `link-check`. */
export function adminJobActivities({ orm, config }: { orm: MikroORM; config: Config }) {
  return {
    async resourcesToProcessPage(afterId: string | null, limit: number): Promise<string[]> {
      return resourcesToProcessPage(orm.em.fork(), afterId, limit);
    },
    async linkCheckPage(afterId: string | null, limit: number): Promise<{ id: string; url: string }[]> {
      return linkCheckPage(orm.em.fork(), afterId, limit);
    },
    /** Checks one link and records the result; the link's own failures are results, never errors. */
    async checkLink(resourceId: string, url: string, timeoutMs: number): Promise<LinkCheckStatus> {
      const probe = await probeLink(url, { timeoutMs, allowPrivateNetworks: config.fetch.allowPrivateNetworks });
      await recordLinkCheck(orm.em.fork(), resourceId, url, probe);
      return probe.status;
    },
  };
}

/**
 * A page of the resources the pipeline has something to work on, after `afterId` in id order: uploads
 * whose bytes arrived (their URL is set then) and links, in datasets that are not deleted or being deleted.
 */
async function resourcesToProcessPage(em: EntityManager, afterId: string | null, limit: number): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `select r.id from resources r join datasets d on d.id = r.dataset_id
      where r.url is not null and d.state <> 'deleted' and not d.deletion_incomplete
        and (?::uuid is null or r.id > ?::uuid)
      order by r.id limit ?`,
    [afterId, afterId, limit],
  );
  return rows.map((r) => r.id);
}

/** A page of the link resources of active datasets, after `afterId` in id order. */
async function linkCheckPage(em: EntityManager, afterId: string | null, limit: number): Promise<{ id: string; url: string }[]> {
  return em.execute<{ id: string; url: string }[]>(
    `select r.id, r.url from resources r join datasets d on d.id = r.dataset_id
      where r.url_type = 'link' and r.url is not null and d.state = 'active'
        and (?::uuid is null or r.id > ?::uuid)
      order by r.id limit ?`,
    [afterId, afterId, limit],
  );
}

/**
 * Stores a check as the resource's latest (an upsert, so a retried activity writes the same row). A
 * resource deleted meanwhile gets no row.
 */
async function recordLinkCheck(em: EntityManager, resourceId: string, url: string, probe: LinkProbe, checkedAt = new Date()) {
  const rows = await em.execute<{ resource_id: string }[]>(
    `insert into link_checks (resource_id, url, status, http_status, checked_at, latency_ms, error)
     select ?, ?, ?, ?, ?, ?, ? where exists (select 1 from resources where id = ?)
     on conflict (resource_id) do update
        set url = excluded.url, status = excluded.status, http_status = excluded.http_status,
            checked_at = excluded.checked_at, latency_ms = excluded.latency_ms, error = excluded.error
     returning resource_id`,
    [
      resourceId,
      url.slice(0, 2000),
      probe.status,
      probe.httpStatus,
      checkedAt,
      probe.latencyMs,
      probe.error?.slice(0, 1000) ?? null,
      resourceId,
    ],
  );
  return rows.length > 0;
}
