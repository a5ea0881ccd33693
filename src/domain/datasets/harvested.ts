import { HarvestSource, type Dataset } from '../../entities/index.ts';
import type { DomainContext } from '../context.ts';
import { harvestedDataset } from '../errors.ts';

/**
 * The edit lock of issue 18: a harvested dataset follows its source, whose next run would overwrite a
 * hand edit (ckanext-harvest does so silently). Its fields and resources answer 409 `harvested_dataset`
 * to everyone, sysadmins included, until the source is deleted without purge (which detaches it).
 * Deleting, restoring, publishing again and re-running a resource's pipeline stay allowed.
 */
export async function assertNotHarvested(ctx: DomainContext, dataset: Dataset) {
  const ref = dataset.harvestSource as { id: string } | null | undefined;
  if (!ref) return;
  const source = await ctx.em.findOne(HarvestSource, { id: ref.id });
  throw harvestedDataset(source?.name ?? ref.id);
}
