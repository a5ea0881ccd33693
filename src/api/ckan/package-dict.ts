import type { Group, Resource, Tag } from '../../entities/index.ts';
import type { CatalogDataset } from '../../domain/catalog/datasets.ts';
import { hasTypedPreview } from '../../domain/catalog/resources.ts';
import { ckanFields, DATASET_FIELDS } from '../../domain/datasets/field-table.ts';
import { RESOURCE_FIELDS } from '../../domain/resources/field-table.ts';
import { licenseFor, LICENSES, type License } from '../../domain/licenses.ts';
import { withExtras } from '../../domain/metadata/extras.ts';
import { datasetCustomDict, datasetRecordDict, resourceMetadataDict } from './record-dict.ts';
import type { PendingVersionNote } from '../../domain/pipeline/version-record.ts';

/**
 * Almanac's records as CKAN emits them (ckan/lib/dictization/model_dictize.py): every key present,
 * null where empty, timestamps in CKAN's naive-UTC microsecond form, which harvesters compare as text.
 */

/** `2024-05-01T10:00:00.123456`: UTC, no zone suffix, six fraction digits. */
export const ckanTimestamp = (d: Date | null | undefined) => (d ? `${d.toISOString().slice(0, 23)}000` : null);

/** What a group dict is made from: an organization or category entity, or its REST record. */
export interface GroupFacts {
  id: string;
  name: string;
  title: string;
  description?: string | null;
  imageUrl?: string | null;
  state: string;
  createdAt: Date | string;
}

/** The fields an organization dict and a category dict share. */
function groupBase(g: GroupFacts, kind: 'organization' | 'category') {
  const organization = kind === 'organization';
  return {
    id: g.id,
    name: g.name,
    title: g.title,
    display_name: g.title || g.name,
    description: g.description ?? '',
    image_url: g.imageUrl ?? '',
    image_display_url: g.imageUrl ?? '',
    created: ckanTimestamp(new Date(g.createdAt)),
    type: organization ? 'organization' : 'group',
    is_organization: organization,
    approval_status: 'approved',
    state: g.state,
  };
}

/** An organization or category as the `all_fields` lists and group_show/organization_show give it. */
export const groupDict = (g: GroupFacts & { packageCount: number }, kind: 'organization' | 'category') => ({
  ...groupBase(g, kind),
  package_count: g.packageCount,
});

/** The `organization` inside a package dict. */
const packageOrganization = (g: Group) => {
  const { id, name, title, type, description, image_url, created, is_organization, approval_status, state } = groupBase(g, 'organization');
  return { id, name, title, type, description, image_url, created, is_organization, approval_status, state };
};

export const tagDict = (t: Pick<Tag, 'id' | 'name'>) => ({
  id: t.id,
  name: t.name,
  display_name: t.name,
  state: 'active',
  vocabulary_id: null,
});

/**
 * CKAN's resource dict; the fields of the table after `mimetype`, but for the four placed before it had one;
 * then the distribution record, profile fields and free extras (record-dict.ts).
 */
export function resourceDict(r: Resource) {
  const upload = r.urlType === 'upload';
  const { name, description, format, mimetype, ...fields } = ckanFields(RESOURCE_FIELDS, r);
  return {
    id: r.id,
    package_id: (r.dataset as { id: string }).id,
    url: r.url ?? '',
    name,
    description,
    format: format ?? '',
    mimetype,
    ...fields,
    mimetype_inner: null,
    size: r.size ?? null,
    hash: r.hash ?? '',
    position: r.position,
    resource_type: null,
    url_type: upload ? 'upload' : null,
    cache_url: null,
    cache_last_updated: null,
    created: ckanTimestamp(r.createdAt),
    // When the data last changed: an upload's bytes; a link's target is not watched.
    last_modified: upload && r.hash ? ckanTimestamp(r.updatedAt) : null,
    metadata_modified: ckanTimestamp(r.updatedAt),
    state: 'active',
    datastore_active: hasTypedPreview(r),
    ...heldVersionDict(r),
    ...resourceMetadataDict(r),
  };
}

/** A version held for a breaking schema change (issue 30 §3), for the CKAN clients that publishers' scripts use. */
function heldVersionDict(r: Resource) {
  const held = r.extras.pendingVersion as PendingVersionNote | null | undefined;
  if (!held) return {};
  return {
    schema_change_pending: {
      version: held.version,
      created: ckanTimestamp(new Date(held.createdAt)),
      breaking: held.schemaChanges.breaking,
      changes: held.schemaChanges.changes,
    },
  };
}

/**
 * Where a harvested dataset came from, as key/value extras under the keys ckanext-harvest uses
 * (`harvest_source_id`) and ours for the rest; none for datasets made here. They follow the dataset's own
 * extras, under keys those do not use (the CKAN reader drops them again: HARVEST_PROVENANCE_KEYS).
 */
function harvestExtras(d: CatalogDataset['dataset']): Array<{ key: string; value: string }> {
  const source = d.harvestSource as { id: string } | null | undefined;
  if (!source || !d.harvestRemoteId) return [];
  const extras = {
    harvest_source_id: source.id,
    harvest_remote_id: d.harvestRemoteId,
    harvest_remote_url: d.harvestRemoteUrl,
    harvested_at: ckanTimestamp(d.harvestedAt),
  };
  return Object.entries(extras).flatMap(([key, value]) => (value ? [{ key, value }] : []));
}

/**
 * CKAN's package dict. The fields of the table come after `version` under their CKAN keys, but for those
 * CKAN itself places elsewhere; the metadata record and the profile fields follow CKAN's own keys, and
 * `extras` is the dataset's pairs byte for byte, in order, then the harvest provenance.
 */
export function packageDict({ dataset: d, organization, resources }: CatalogDataset) {
  const { title, notes, url, version, license_id, private: isPrivate, ...fields } = ckanFields(DATASET_FIELDS, d);
  const license = licenseFor(d.licenseId);
  const tags = (d.tags.getItems() as Tag[]).map(tagDict).sort((a, b) => a.name.localeCompare(b.name));
  const groups = (d.groups.getItems() as Group[])
    .map((g) => ({
      id: g.id,
      name: g.name,
      title: g.title,
      display_name: g.title || g.name,
      description: g.description ?? '',
      image_display_url: g.imageUrl ?? '',
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return {
    id: d.id,
    name: d.name,
    title,
    notes,
    url,
    version,
    ...fields,
    license_id,
    license_title: license?.title ?? null,
    license_url: license?.url ?? null,
    isopen: license?.open ?? false,
    type: 'dataset',
    state: d.state,
    private: isPrivate,
    owner_org: organization?.id ?? null,
    organization: organization ? packageOrganization(organization) : null,
    creator_user_id: (d.creator as { id: string } | null | undefined)?.id ?? null,
    metadata_created: ckanTimestamp(d.createdAt),
    metadata_modified: ckanTimestamp(d.updatedAt),
    num_resources: resources.length,
    num_tags: tags.length,
    tags,
    groups,
    extras: withExtras(d.extras ?? [], harvestExtras(d)),
    relationships_as_object: [],
    relationships_as_subject: [],
    resources: resources.map(resourceDict),
    ...datasetRecordDict(d.metadata),
    ...datasetCustomDict(d.customFields),
  };
}

/** license_list's rows (ckan/model/license.py's license_dictize). */
export const licenseDict = (l: License) => ({
  id: l.id,
  title: l.title,
  url: l.url ?? '',
  status: 'active',
  maintainer: '',
  family: '',
  is_generic: l.url === null && l.id.startsWith('other-'),
  is_okd_compliant: l.open,
  is_osi_compliant: false,
  od_conformance: l.open ? 'approved' : 'not reviewed',
  osd_conformance: 'not reviewed',
  domain_content: false,
  domain_data: false,
  domain_software: false,
});

export const licenseList = () => LICENSES.map(licenseDict);

export type PackageDict = ReturnType<typeof packageDict>;
