import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { AWAITED_ACTIVITY } from './activity-options.ts';

const { purgeDeletedDataset } = proxyActivities<Activities>(AWAITED_ACTIVITY);

/** `purge-dataset-<id>`: removes a soft-deleted dataset and its resources for good. */
export async function purgeDatasetWorkflow(datasetId: string): Promise<{ removed: boolean }> {
  return { removed: await purgeDeletedDataset(datasetId) };
}
