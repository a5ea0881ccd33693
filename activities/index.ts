import type { MikroORM } from '@mikro-orm/postgresql';
import { deleteDeletedDataset, deleteDraftRecord, deleteDraftResources, flagDraftDeletion } from '../src/domain/datasets/removal.ts';
import { deleteDatasetsPage, deleteGroupsAndTags } from '../src/domain/admin/data-deletion.ts';
import { deleteDeletedOrganization, deleteOrganizationDatasetsPage } from '../src/domain/groups/purge.ts';
import { writeKeywordDocument } from '../src/search/keyword-document.ts';
import type { ObjectStore } from '../src/storage/object-store.ts';
import type { Config } from '../src/config.ts';
import { adminJobActivities } from './admin-jobs.ts';
import { pipelineActivities } from './pipeline.ts';

export interface ActivityServices {
  orm: MikroORM;
  storage: ObjectStore;
  config: Config;
}

/**
 * Builds the activities from the app's services; the worker calls this once. Each activity forks its
 * own EntityManager and calls into src/domain, so retries never share state.
 */
export function createActivities({ orm, storage, config }: ActivityServices) {
  const searchLanguage = config.search.language;
  return {
    ...pipelineActivities({ orm, storage, config }),
    ...adminJobActivities({ orm, config }),
    async deleteDatasetsPage(pageSize: number): Promise<number> {
      return deleteDatasetsPage(orm.em.fork(), storage, pageSize);
    },
    async deleteGroupsAndTags(): Promise<void> {
      return deleteGroupsAndTags(orm.em.fork());
    },
    async writeKeywordDocument(datasetId: string): Promise<boolean> {
      return writeKeywordDocument(orm.em.fork(), datasetId, searchLanguage);
    },
    async purgeOrganizationDatasets(orgId: string, pageSize: number): Promise<number> {
      return deleteOrganizationDatasetsPage(orm.em.fork(), storage, orgId, pageSize);
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
    async purgeDeletedDataset(datasetId: string): Promise<boolean> {
      return deleteDeletedDataset(orm.em.fork(), storage, datasetId);
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
