import type { EntityManager } from '@mikro-orm/postgresql';
import type { SearchServices } from '../../search/search-services.ts';
import { removeDatasetVectors } from '../../search/sync.ts';
import { Dataset, Resource } from '../../entities/index.ts';
import type { ObjectStore } from '../../storage/object-store.ts';
import { removeDatasetFiles } from '../resources/file-removal.ts';

/**
 * Permanent removal of datasets, as workflow steps. Those of `delete-draft-<id>`: The row is flagged first and removed last, so a deletion
 * cut short leaves the draft listed with `deletionIncomplete: true` until a repeated DELETE finishes
 * it. Each step is idempotent. Each removal is a transaction of its own, even as one statement: the history's
 * triggers read who made the change from the transaction (src/domain/activity/actor-scope.ts).
 */
export async function flagDraftDeletion(em: EntityManager, datasetId: string): Promise<boolean> {
  return (await em.nativeUpdate(Dataset, { id: datasetId, state: 'draft' }, { deletionIncomplete: true })) > 0;
}

/** Files first, then the resource rows (their index documents go with the rows). */
export async function deleteDraftResources(em: EntityManager, storage: ObjectStore, datasetId: string): Promise<number> {
  if (!(await em.count(Dataset, { id: datasetId, state: 'draft' }))) return 0;
  await removeDatasetFiles(em, storage, [datasetId]);
  return em.transactional((tx) => tx.nativeDelete(Resource, { dataset: { id: datasetId, state: 'draft' } }));
}

export async function deleteDraftRecord(em: EntityManager, datasetId: string): Promise<boolean> {
  return (await em.transactional((tx) => tx.nativeDelete(Dataset, { id: datasetId, state: 'draft' }))) > 0;
}

/** The step of `purge-dataset-<id>`: a soft-deleted dataset goes for good, its files first, its resources by cascade. */
export async function deleteDeletedDataset(
  em: EntityManager,
  storage: ObjectStore,
  search: SearchServices,
  datasetId: string,
): Promise<boolean> {
  if (!(await em.count(Dataset, { id: datasetId, state: 'deleted' }))) return false;
  await removeDatasetFiles(em, storage, [datasetId]);
  await removeDatasetVectors(search, [datasetId]);
  return (await em.transactional((tx) => tx.nativeDelete(Dataset, { id: datasetId, state: 'deleted' }))) > 0;
}
