import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { RETRY_TRANSIENT, SHORT_ACTIVITY } from './activity-options.ts';
import { forEachWithLimit } from './concurrency.ts';
import type { LinkCheckCounts, LinkCheckOptions } from '../src/domain/jobs/port.ts';

const { linkCheckPage } = proxyActivities<Activities>(SHORT_ACTIVITY);

/**
 * `link-check` (and `link-check-<time>` from the schedule): checks every link resource of the active
 * datasets, page by page in id order, and records each result (one row per resource, replaced).
 */
export async function linkCheckWorkflow({
  timeoutMs = 10_000,
  concurrency = 8,
  pageSize = 100,
  pagesPerRun = 20,
  afterId = null,
  counts = { ok: 0, broken: 0, timeout: 0 },
}: LinkCheckOptions = {}): Promise<LinkCheckCounts> {
  // A check never fails for the link's sake (that is a result); retries are for the database write.
  const { checkLink } = proxyActivities<Activities>({ startToCloseTimeout: timeoutMs + 30_000, retry: RETRY_TRANSIENT });
  const total = { ...counts };
  let cursor = afterId;
  for (let page = 0; page < pagesPerRun; page++) {
    const links = await linkCheckPage(cursor, pageSize);
    await forEachWithLimit(links, concurrency, async ({ id, url }) => {
      total[await checkLink(id, url, timeoutMs)]++;
    });
    if (links.length < pageSize) return total;
    cursor = links[links.length - 1].id;
  }
  return continueAsNew<typeof linkCheckWorkflow>({ timeoutMs, concurrency, pageSize, pagesPerRun, afterId: cursor, counts: total });
}
