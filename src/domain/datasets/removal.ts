import type { EntityManager } from '@mikro-orm/postgresql';
import { Dataset, Resource } from '../../entities/index.ts';

/**
 * Permanent removal of datasets, as workflow steps. Those of `delete-draft-<id>`: The row is flagged first and removed last, so a deletion
 * cut short leaves the draft listed with `deletionIncomplete: true` until a repeated DELETE finishes
 * it. Each step is idempotent.
 */
export async function flagDraftDeletion(em: EntityManager, datasetId: string): Promise<boolean> {
  return (await em.nativeUpdate(Dataset, { id: datasetId, state: 'draft' }, { deletionIncomplete: true })) > 0;
}

export async function deleteDraftResources(em: EntityManager, datasetId: string): Promise<number> {
  return em.nativeDelete(Resource, { dataset: { id: datasetId, state: 'draft' } });
}

export async function deleteDraftRecord(em: EntityManager, datasetId: string): Promise<boolean> {
  return (await em.nativeDelete(Dataset, { id: datasetId, state: 'draft' })) > 0;
}

/** The step of `purge-dataset-<id>`: a soft-deleted dataset goes for good, its resources by cascade. */
export async function deleteDeletedDataset(em: EntityManager, datasetId: string): Promise<boolean> {
  return (await em.nativeDelete(Dataset, { id: datasetId, state: 'deleted' })) > 0;
}
