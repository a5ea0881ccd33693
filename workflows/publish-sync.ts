import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { AWAITED_ACTIVITY } from './activity-options.ts';

const { syncDatasetSearch } = proxyActivities<Activities>(AWAITED_ACTIVITY);

/**
 * `publish-sync-<id>`: brings a dataset's search state in line with its row: the keyword document, its
 * points in the three indexes and their vectors. Run after every change that search can see.
 */
export async function publishSyncWorkflow(datasetId: string): Promise<{ found: boolean; vectors: boolean }> {
  return syncDatasetSearch(datasetId);
}
