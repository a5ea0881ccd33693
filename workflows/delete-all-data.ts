import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { SHORT_ACTIVITY } from './activity-options.ts';

const { deleteDatasetsPage, deleteGroupsAndTags } = proxyActivities<Activities>(SHORT_ACTIVITY);

const PAGE_SIZE = 500;
const PAGES_PER_RUN = 50;

/** `delete-all-data`: every dataset page by page (continuing as new), then groups and tags; users stay. */
export async function deleteAllDataWorkflow(datasetsRemovedBefore = 0): Promise<{ datasets: number }> {
  let datasets = datasetsRemovedBefore;
  for (let page = 0; page < PAGES_PER_RUN; page++) {
    const removed = await deleteDatasetsPage(PAGE_SIZE);
    datasets += removed;
    if (removed < PAGE_SIZE) {
      await deleteGroupsAndTags();
      return { datasets };
    }
  }
  return continueAsNew<typeof deleteAllDataWorkflow>(datasets);
}
