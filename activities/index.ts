import { deleteDeletedDataset, deleteDraftRecord, deleteDraftResources, flagDraftDeletion } from '../src/domain/datasets/removal.ts';
import { deleteDeletedOrganization, deleteOrganizationDatasetsPage } from '../src/domain/groups/purge.ts';
import { syncDatasetSearch } from '../src/search/sync.ts';
import { adminJobActivities } from './admin-jobs.ts';
import { harvestActivities } from './harvest.ts';
import type { ActivityServices } from './services.ts';
import { pipelineActivities } from './pipeline.ts';
import { siteDataActivities } from './site-data.ts';
import { Context } from '@temporalio/activity';
import { sweepOrphans } from '../src/domain/resources/orphan-sweep.ts';
import type { StorageSweepCounts } from '../src/domain/jobs/port.ts';

/**
 * Builds the activities from the app's services; the worker calls this once. Each activity forks its
 * own EntityManager and calls into src/domain, so retries never share state.
 */
export function createActivities({ orm, storage, config, search, jobs, log }: ActivityServices) {
  return {
    ...harvestActivities({ orm, storage, config, search, jobs, log }),
    ...pipelineActivities({ orm, storage, config, search }),
    ...adminJobActivities({ orm, config }),
    ...siteDataActivities({ orm, storage, config, search }),
    /** A scheduled harvest's first step: another run of its source still going (then it skips). */
    async otherHarvestRunning(sourceId: string, workflowId: string): Promise<string | null> {
      if (!jobs) return null;
      return (await jobs.otherHarvestRunning(sourceId, workflowId))?.workflowId ?? null;
    },
    async syncDatasetSearch(datasetId: string): Promise<{ found: boolean; vectors: boolean }> {
      return syncDatasetSearch({ em: orm.em.fork(), storage, config, search }, datasetId);
    },
    async purgeOrganizationDatasets(orgId: string, pageSize: number): Promise<number> {
      return deleteOrganizationDatasetsPage(orm.em.fork(), storage, search, orgId, pageSize);
    },
    async purgeOrganizationRecord(orgId: string): Promise<boolean> {
      return deleteDeletedOrganization(orm.em.fork(), orgId);
    },
    async flagDraftDeletion(datasetId: string): Promise<boolean> {
      return flagDraftDeletion(orm.em.fork(), datasetId);
    },
    async deleteDraftResources(datasetId: string): Promise<number> {
      return deleteDraftResources(orm.em.fork(), storage, datasetId);
    },
    async deleteDraftRecord(datasetId: string): Promise<boolean> {
      return deleteDraftRecord(orm.em.fork(), datasetId);
    },
    async sweepStorage(olderThanSeconds: number): Promise<StorageSweepCounts> {
      const deps = {
        em: orm.em.fork(),
        storage,
        dataDir: config.dataDir,
        retention: config.versions.retention,
        heartbeat: () => Context.current().heartbeat(),
      };
      const { scanned, orphanCount, orphanBytes, removedCount } = await sweepOrphans(deps, { remove: true, olderThanSeconds });
      return { scanned, orphanCount, orphanBytes, removedCount };
    },
    async purgeDeletedDataset(datasetId: string): Promise<boolean> {
      return deleteDeletedDataset(orm.em.fork(), storage, search, datasetId);
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;

export type { ActivityServices } from './services.ts';
