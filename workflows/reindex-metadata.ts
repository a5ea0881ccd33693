import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { PIPELINE_ACTIVITY } from './activity-options.ts';
import type { PagedRunOptions } from '../src/domain/jobs/port.ts';

const { reindexDatasetsPage, pruneVectorIndexes } = proxyActivities<Activities>(PIPELINE_ACTIVITY);

/** Paging over datasets. */
export interface ReindexOptions extends PagedRunOptions {
  /** Carried across continue-as-new: datasets reindexed so far. */
  datasets?: number;
}

/**
 * `reindex-metadata`: rebuilds every dataset's search state (keyword document, points, vectors — embedded
 * only where the cache lacks them) page by page in id order, then drops vectors that no point backs.
 * Points are replaced in place, so search keeps answering throughout.
 */
export async function reindexMetadataWorkflow({
  pageSize = 100,
  pagesPerRun = 20,
  afterId = null,
  datasets = 0,
}: ReindexOptions = {}): Promise<{ datasets: number; pruned: number }> {
  let after = afterId;
  for (let page = 0; page < pagesPerRun; page++) {
    const done = await reindexDatasetsPage(after, pageSize);
    datasets += done.count;
    if (done.lastId === null) {
      return { datasets, pruned: await pruneVectorIndexes() };
    }
    after = done.lastId;
  }
  return continueAsNew<typeof reindexMetadataWorkflow>({ pageSize, pagesPerRun, afterId: after, datasets });
}
