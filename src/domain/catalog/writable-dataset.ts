import { Group, Resource, type GroupKind } from '../../entities/index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { loadVisibleDataset } from '../datasets/access.ts';
import { byNameOrId, isUuid } from '../ids.ts';
import type { CatalogDataset } from './datasets.ts';

/**
 * What the CKAN write actions read before they write (package_patch's show, package_update's current
 * resources): a draft or an active dataset the actor may see, with its whole record. Whether the actor
 * may change it is the write's own rule, asked by the domain function that writes.
 */
export async function loadDatasetBeforeWrite(ctx: DomainContext, actor: Actor, nameOrId: string): Promise<CatalogDataset> {
  const { dataset } = await loadVisibleDataset(ctx, actor, nameOrId, ['draft', 'active']);
  const resources = await ctx.em.find(Resource, { dataset: dataset.id }, { orderBy: { position: 'asc' } });
  return { dataset, organization: (dataset.ownerOrg as Group | null | undefined) ?? null, resources };
}

/**
 * A reference to an organization or category from a dict written elsewhere (`ckanapi dump` of another
 * site): its id where a group here has it, else its name, so a dump's foreign ids still find the group
 * of the same name. The domain resolves the reference again, with its own rule.
 */
export async function groupReference(
  ctx: DomainContext,
  kind: GroupKind,
  ref: { id?: string | null; name?: string | null },
): Promise<string | undefined> {
  const { id, name } = ref;
  if (id && (!isUuid(id) || (await ctx.em.count(Group, { kind, ...byNameOrId(id) })) > 0)) return id;
  return name || id || undefined;
}
