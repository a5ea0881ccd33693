import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray } from '../db.ts';

/**
 * The facet counts' side of the search sync: each active dataset's facet values, numbered, as one row of
 * `dataset_facet_keys`, rewritten when they change and removed when the dataset is no longer active; triggers
 * on that table note each change per value and scope, and the changes are folded into `facet_counts`
 * (`write_facet_keys`, migrations/Migration20261129000000_FacetCounts.ts). Run inside the sync's
 * transaction, after its keyword documents: their update holds the datasets' rows, so two syncs of one
 * dataset take turns and the second reads what the first wrote. Idempotent: an unchanged dataset writes nothing.
 */
export async function writeFacetKeys(em: EntityManager, datasetIds: string[]): Promise<void> {
  await em.execute('select write_facet_keys(?::uuid[])', [pgArray(datasetIds)]);
}

/** Every active dataset at once (a bulk load). */
export async function writeAllFacetKeys(em: EntityManager): Promise<void> {
  await em.execute('select write_facet_keys(null)');
}
