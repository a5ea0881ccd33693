import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { AWAITED_ACTIVITY } from './activity-options.ts';

const { purgeDeletedDataset } = proxyActivities<Activities>(AWAITED_ACTIVITY);

/** `purge-dataset-<id>`: removes a soft-deleted dataset and its resources for good, as `actorId` (null: the system). */
export async function purgeDatasetWorkflow(datasetId: string, actorId: string | null = null): Promise<{ removed: boolean }> {
  return { removed: await purgeDeletedDataset(datasetId, actorId) };
}
