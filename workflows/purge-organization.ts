import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { SHORT_ACTIVITY } from './activity-options.ts';

const { purgeOrganizationDatasets, purgeOrganizationRecord } = proxyActivities<Activities>(SHORT_ACTIVITY);

export interface PurgeProgress {
  /** Datasets removed per activity call. */
  pageSize?: number;
  /** Pages per run before continue-as-new, so a large organization never grows one huge history. */
  pagesPerRun?: number;
  /** Carried across continue-as-new. */
  datasetsRemoved?: number;
  /** The user the history names for what the purge removes; null: the system. */
  actorId?: string | null;
}

/**
 * `purge-org-<id>`: removes a soft-deleted organization for good: its datasets page by page, then its
 * own row (with its memberships). A purge cut short leaves the organization listed as deleted and the
 * next request finishes the work. Restoring is refused while this runs.
 */
export async function purgeOrganizationWorkflow(
  orgId: string,
  { pageSize = 200, pagesPerRun = 50, datasetsRemoved = 0, actorId = null }: PurgeProgress = {},
): Promise<{ removed: boolean; datasets: number }> {
  let datasets = datasetsRemoved;
  for (let page = 0; page < pagesPerRun; page++) {
    const removed = await purgeOrganizationDatasets(orgId, pageSize, actorId);
    datasets += removed;
    if (removed < pageSize) return { removed: await purgeOrganizationRecord(orgId, actorId), datasets };
  }
  return continueAsNew<typeof purgeOrganizationWorkflow>(orgId, { pageSize, pagesPerRun, datasetsRemoved: datasets, actorId });
}
