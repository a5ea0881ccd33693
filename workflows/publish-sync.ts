import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { AWAITED_ACTIVITY } from '../src/temporal/policies.ts';

const { writeKeywordDocument } = proxyActivities<Activities>(AWAITED_ACTIVITY);

/**
 * `publish-sync-<id>`: brings a dataset's search documents in line with its row (today the keyword
 * document; vectors join with semantic search). Run after every change that search can see.
 */
export async function publishSyncWorkflow(datasetId: string): Promise<{ found: boolean }> {
  return { found: await writeKeywordDocument(datasetId) };
}
