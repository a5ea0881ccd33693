import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../src/config.ts';
import { resourcesToProcessPage } from '../src/domain/admin/jobs.ts';
import { linkCheckPage, recordLinkCheck } from '../src/domain/admin/link-health.ts';
import type { LinkCheckStatus } from '../src/entities/index.ts';
import { probeLink } from '../src/net/link-probe.ts';

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
