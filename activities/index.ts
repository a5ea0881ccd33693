import { deleteDeletedDataset, deleteDraftRecord, deleteDraftResources, flagDraftDeletion } from '../src/domain/datasets/removal.ts';
import { deleteDeletedOrganization, deleteOrganizationDatasetsPage } from '../src/domain/groups/purge.ts';
import { syncDatasetSearch } from '../src/search/sync.ts';
import { adminJobActivities } from './admin-jobs.ts';
import { harvestActivities } from './harvest.ts';
import { beating } from './heartbeat.ts';
import type { ActivityServices } from './services.ts';
import { pipelineActivities } from './pipeline.ts';
import { siteDataActivities } from './site-data.ts';
import { Context } from '@temporalio/activity';
import { sweepOrphans } from '../src/domain/resources/orphan-sweep.ts';
import type { StorageSweepCounts } from '../src/domain/jobs/port.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { actAs } from '../src/domain/activity/actor-scope.ts';

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
    otherHarvestRunning(sourceId: string, workflowId: string): Promise<string | null> {
      return beating(async () => (jobs ? ((await jobs.otherHarvestRunning(sourceId, workflowId))?.workflowId ?? null) : null));
    },
    async syncDatasetSearch(datasetId: string): Promise<{ found: boolean; vectors: boolean }> {
      const synced = await syncDatasetSearch({ em: orm.em.fork(), storage, config, search }, datasetId);
      // Vectors not pushed (the model or the index down): the vector backlog retries them, so it is told.
      if (synced.found && !synced.vectors && search.embeddings && jobs)
        await jobs
          .announceVectorBacklog()
          .catch((err: unknown) => search.log.warn({ err, datasetId }, 'the vector backlog could not be told'));
      return synced;
    },
    async purgeOrganizationDatasets(orgId: string, pageSize: number, actorId: string | null = null): Promise<number> {
      return deleteOrganizationDatasetsPage(actingAs(orm.em.fork(), actorId), storage, search, orgId, pageSize);
    },
    async purgeOrganizationRecord(orgId: string, actorId: string | null = null): Promise<boolean> {
      return deleteDeletedOrganization(actingAs(orm.em.fork(), actorId), orgId);
    },
    async flagDraftDeletion(datasetId: string): Promise<boolean> {
      return flagDraftDeletion(orm.em.fork(), datasetId);
    },
    async deleteDraftResources(datasetId: string, actorId: string | null = null): Promise<number> {
      return deleteDraftResources(actingAs(orm.em.fork(), actorId), storage, datasetId);
    },
    async deleteDraftRecord(datasetId: string, actorId: string | null = null): Promise<boolean> {
      return deleteDraftRecord(actingAs(orm.em.fork(), actorId), datasetId);
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
    async purgeDeletedDataset(datasetId: string, actorId: string | null = null): Promise<boolean> {
      return deleteDeletedDataset(actingAs(orm.em.fork(), actorId), storage, search, datasetId);
    },
  };
}

/** An activity's EntityManager writing as the user who asked for the job (issue 30: who made each change). */
function actingAs(em: EntityManager, actorId: string | null) {
  if (actorId) actAs(em, { userId: actorId });
  return em;
}

export type Activities = ReturnType<typeof createActivities>;

export type { ActivityServices } from './services.ts';
