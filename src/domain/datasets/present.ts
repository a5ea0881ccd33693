import type { Dataset, Group, Resource, Tag } from '../../entities/index.ts';
import { presentResource } from '../resources/present.ts';
import { presentProvenance } from './harvested.ts';

const groupRef = (g: Group) => ({ id: g.id, name: g.name, title: g.title });

/** The dataset record of DESIGN §4; `resources` only on detail, `deletionIncomplete` only on drafts. */
export function presentDataset(d: Dataset, opts: { resources?: Resource[] } = {}) {
  const org = d.ownerOrg as Group | null | undefined;
  return {
    id: d.id,
    name: d.name,
    title: d.title ?? null,
    notes: d.notes ?? null,
    ownerOrg: org?.id ?? null,
    organization: org ? groupRef(org) : null,
    licenseId: d.licenseId ?? null,
    private: d.private,
    state: d.state,
    tags: (d.tags.getItems() as Tag[]).map((t) => t.name).sort(),
    groups: (d.groups.getItems() as Group[]).map(groupRef).sort((a, b) => a.name.localeCompare(b.name)),
    author: d.author ?? null,
    authorEmail: d.authorEmail ?? null,
    maintainer: d.maintainer ?? null,
    maintainerEmail: d.maintainerEmail ?? null,
    version: d.version ?? null,
    url: d.url ?? null,
    creatorUserId: (d.creator as { id: string } | null | undefined)?.id ?? null,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
    publishedAt: d.publishedAt?.toISOString() ?? null,
    harvest: presentProvenance(d),
    ...(opts.resources ? { resources: opts.resources.map(presentResource) } : {}),
    ...(d.state === 'draft' ? { deletionIncomplete: d.deletionIncomplete } : {}),
  };
}
