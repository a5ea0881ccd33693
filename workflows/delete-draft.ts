import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { AWAITED_ACTIVITY } from './activity-options.ts';

const { flagDraftDeletion, deleteDraftResources, deleteDraftRecord } = proxyActivities<Activities>(AWAITED_ACTIVITY);

/**
 * `delete-draft-<id>`: removes a draft for good. Flag first, row last: if a step fails, the draft stays
 * listed with `deletionIncomplete: true`, and the same DELETE runs this again to finish. The history names
 * `actorId` (null: the system) for what it removes.
 */
export async function deleteDraftWorkflow(datasetId: string, actorId: string | null = null): Promise<{ removed: boolean }> {
  if (!(await flagDraftDeletion(datasetId))) return { removed: false };
  await deleteDraftResources(datasetId, actorId);
  return { removed: await deleteDraftRecord(datasetId, actorId) };
}
