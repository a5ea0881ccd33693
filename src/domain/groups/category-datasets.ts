import { authorize } from '../../policies/index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { loadVisibleDataset } from '../datasets/access.ts';
import { assertNotHarvested } from '../datasets/harvested.ts';
import { resolveCategories } from '../datasets/references.ts';

/**
 * One dataset into or out of one category, the way CKAN's member_create/member_delete with a package
 * do it, under the rules a dataset update applies to its `groups`: editing the dataset, and for adding,
 * membership of the category. A harvested dataset's categories follow its source (409).
 */
export async function setDatasetInCategory(ctx: DomainContext, actor: Actor, categoryRef: string, datasetRef: string, inside: boolean) {
  const result = await ctx.em.transactional(async (em) => {
    const tx = { ...ctx, em };
    const { dataset, subject } = await loadVisibleDataset(tx, actor, datasetRef, ['draft', 'active']);
    authorize(actor, 'dataset:edit', subject);
    await assertNotHarvested(tx, dataset);
    const current = dataset.groups.getItems();
    const [category] = await resolveCategories(tx, actor, [categoryRef], current);
    const isIn = current.some((c) => c.id === category.id);
    if (isIn !== inside) {
      if (inside) dataset.groups.add(category);
      else dataset.groups.remove((c) => c.id === category.id);
      // A change of categories is a change of the dataset: harvesters compare metadata_modified.
      dataset.updatedAt = new Date();
      await em.flush();
    }
    return { datasetId: dataset.id, categoryId: category.id, state: dataset.state };
  });
  if (result.state === 'active') await ctx.jobs.syncSearch(result.datasetId);
  return result;
}
