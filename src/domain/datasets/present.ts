import type { Collection } from '@mikro-orm/core';
import type { Dataset, Group, Tag } from '../../entities/index.ts';
import { isoText, presentResource, type ResourceFields } from '../resources/present.ts';

interface GroupFields {
  id: string;
  name: string;
  title: string;
}

/**
 * What the record needs of a dataset: the entity with its organization, tags and categories loaded, or a
 * plain row of the one-statement read (detail-query.ts), dates as ISO text. One presenter for both, so
 * the two reads cannot drift apart.
 */
export interface DatasetFields {
  id: string;
  name: string;
  title?: string | null;
  notes?: string | null;
  ownerOrg?: GroupFields | Dataset['ownerOrg'] | null;
  licenseId?: string | null;
  private: boolean;
  state: Dataset['state'];
  tags: Array<{ name: string }> | Collection<Tag>;
  groups: GroupFields[] | Collection<Group>;
  author?: string | null;
  authorEmail?: string | null;
  maintainer?: string | null;
  maintainerEmail?: string | null;
  version?: string | null;
  url?: string | null;
  creator?: { id: string } | Dataset['creator'] | null;
  createdAt: Date | string;
  updatedAt: Date | string;
  publishedAt?: Date | string | null;
  deletionIncomplete: boolean;
  harvestSource?: { id: string } | Dataset['harvestSource'] | null;
  harvestRemoteId?: string | null;
  harvestRemoteUrl?: string | null;
  harvestedAt?: Date | string | null;
}

const groupRef = (g: GroupFields) => ({ id: g.id, name: g.name, title: g.title });
const items = <T>(list: T[] | Collection<T & object>): T[] => (Array.isArray(list) ? list : (list.getItems() as T[]));

/** The record's `harvest`: where it came from, null for datasets made here (or detached). */
function presentProvenance(d: DatasetFields) {
  const ref = d.harvestSource as { id: string } | null | undefined;
  if (!ref || !d.harvestRemoteId) return null;
  return {
    sourceId: ref.id,
    remoteId: d.harvestRemoteId,
    remoteUrl: d.harvestRemoteUrl ?? null,
    harvestedAt: d.harvestedAt ? isoText(d.harvestedAt) : null,
  };
}

/** The dataset record of DESIGN §4; `resources` only on detail, `deletionIncomplete` only on drafts. */
export function presentDataset(d: DatasetFields, opts: { resources?: ResourceFields[] } = {}) {
  const org = d.ownerOrg as GroupFields | null | undefined;
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
    tags: items<{ name: string }>(d.tags as Array<{ name: string }>)
      .map((t) => t.name)
      .sort(),
    groups: items<GroupFields>(d.groups as GroupFields[])
      .map(groupRef)
      .sort((a, b) => a.name.localeCompare(b.name)),
    author: d.author ?? null,
    authorEmail: d.authorEmail ?? null,
    maintainer: d.maintainer ?? null,
    maintainerEmail: d.maintainerEmail ?? null,
    version: d.version ?? null,
    url: d.url ?? null,
    creatorUserId: (d.creator as { id: string } | null | undefined)?.id ?? null,
    createdAt: isoText(d.createdAt),
    updatedAt: isoText(d.updatedAt),
    publishedAt: d.publishedAt ? isoText(d.publishedAt) : null,
    harvest: presentProvenance(d),
    ...(opts.resources ? { resources: opts.resources.map(presentResource) } : {}),
    ...(d.state === 'draft' ? { deletionIncomplete: d.deletionIncomplete } : {}),
  };
}
