import type { Collection } from '@mikro-orm/core';
import type { Dataset, Group, Tag } from '../../entities/index.ts';
import { DATASET_FIELDS, fieldValues, type FieldInput } from './field-table.ts';
import { presentDatasetMetadata, type DatasetMetadataColumns } from '../metadata/record-io.ts';
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
export interface DatasetFields extends FieldInput<typeof DATASET_FIELDS>, Partial<DatasetMetadataColumns> {
  id: string;
  name: string;
  ownerOrg?: GroupFields | Dataset['ownerOrg'] | null;
  private: boolean;
  state: Dataset['state'];
  tags: Array<{ name: string }> | Collection<Tag>;
  groups: GroupFields[] | Collection<Group>;
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

/**
 * The dataset record of DESIGN §4; `resources` only on detail, `deletionIncomplete` only on drafts. The
 * fields of the table come after `groups`, but for the four the record placed earlier before it had one.
 */
export function presentDataset(d: DatasetFields, opts: { resources?: ResourceFields[] } = {}) {
  const org = d.ownerOrg as GroupFields | null | undefined;
  const { title, notes, licenseId, private: isPrivate, ...fields } = fieldValues(DATASET_FIELDS, d);
  return {
    id: d.id,
    name: d.name,
    title,
    notes,
    ownerOrg: org?.id ?? null,
    organization: org ? groupRef(org) : null,
    licenseId,
    private: isPrivate,
    state: d.state,
    tags: items<{ name: string }>(d.tags as Array<{ name: string }>)
      .map((t) => t.name)
      .sort(),
    groups: items<GroupFields>(d.groups as GroupFields[])
      .map(groupRef)
      .sort((a, b) => a.name.localeCompare(b.name)),
    ...fields,
    ...presentDatasetMetadata(d),
    creatorUserId: (d.creator as { id: string } | null | undefined)?.id ?? null,
    createdAt: isoText(d.createdAt),
    updatedAt: isoText(d.updatedAt),
    publishedAt: d.publishedAt ? isoText(d.publishedAt) : null,
    harvest: presentProvenance(d),
    ...(opts.resources ? { resources: opts.resources.map(presentResource) } : {}),
    ...(d.state === 'draft' ? { deletionIncomplete: d.deletionIncomplete } : {}),
  };
}
