import { DATASET_RECORD, recordKeys, type RecordTable } from '../../domain/metadata/dataset-record.ts';
import { DISTRIBUTION_RECORD } from '../../domain/metadata/distribution-record.ts';
import type { Extra } from '../../domain/metadata/extras.ts';

/**
 * The metadata record in CKAN's dicts as a scheming site gives it (ckanext-dcat's DCAT-AP scheming
 * schema): each key of the record that is set, top-level under its CKAN name, its value as the record
 * holds it (lists as lists, objects as objects); a key that is unset is absent, as scheming leaves out a
 * field no one filled. Profile fields come top-level too, as ckanext-scheming places its own fields; a
 * resource's free extras are flattened into the resource dict, as CKAN does with resource extras.
 */

/** The keys CKAN itself gives a package dict (and older CKANs' bookkeeping): never a profile field's place. */
export const CKAN_PACKAGE_KEYS: ReadonlySet<string> = new Set([
  'id',
  'name',
  'title',
  'notes',
  'url',
  'version',
  'author',
  'author_email',
  'maintainer',
  'maintainer_email',
  'license_id',
  'license_title',
  'license_url',
  'isopen',
  'type',
  'state',
  'private',
  'owner_org',
  'organization',
  'creator_user_id',
  'metadata_created',
  'metadata_modified',
  'num_resources',
  'num_tags',
  'tags',
  'groups',
  'extras',
  'relationships_as_object',
  'relationships_as_subject',
  'resources',
  'revision_id',
  'tracking_summary',
  'plugin_data',
]);

/** The keys CKAN gives a resource dict. */
export const CKAN_RESOURCE_KEYS: ReadonlySet<string> = new Set([
  'id',
  'package_id',
  'url',
  'name',
  'description',
  'format',
  'mimetype',
  'mimetype_inner',
  'size',
  'hash',
  'position',
  'resource_type',
  'url_type',
  'cache_url',
  'cache_last_updated',
  'created',
  'last_modified',
  'metadata_modified',
  'state',
  'datastore_active',
  // Almanac's own: the held version's notice, the system's state, never a free extra on the way back.
  'schema_change_pending',
  'datastore_contains_all_records_of_source',
  'revision_id',
  'tracking_summary',
  'extras',
]);

const ckanNames = (table: RecordTable) => new Set(Object.values(table).map((f) => f.ckan));
export const DATASET_RECORD_CKAN_KEYS: ReadonlySet<string> = ckanNames(DATASET_RECORD);
export const DISTRIBUTION_RECORD_CKAN_KEYS: ReadonlySet<string> = ckanNames(DISTRIBUTION_RECORD);

/** The set keys of a stored record under their CKAN names, in the table's order. */
export function recordDict(table: RecordTable, stored: Record<string, unknown> | null | undefined): Record<string, unknown> {
  return Object.fromEntries(
    recordKeys(table).flatMap((k) => {
      const value = stored?.[k];
      const unset = value === undefined || value === null || (Array.isArray(value) && value.length === 0);
      return unset ? [] : [[table[k]!.ckan, value]];
    }),
  );
}

/**
 * Pairs placed top-level where no key of CKAN's or the record's is: a profile field named like one of
 * them (`title`, `publisher`) stays out of the dict, where it would change what a CKAN client reads as
 * that core field (REST's `customFields` still gives it).
 */
export function topLevelFields(pairs: Iterable<[string, unknown]>, taken: ReadonlySet<string>): Record<string, unknown> {
  const placed: Record<string, unknown> = {};
  for (const [key, value] of pairs) if (!taken.has(key) && !(key in placed)) placed[key] = value;
  return placed;
}

export const datasetRecordDict = (stored: Record<string, unknown> | null | undefined) => recordDict(DATASET_RECORD, stored);

/** A dataset's profile fields, top-level as scheming gives them. */
export const datasetCustomDict = (customFields: Record<string, unknown> | null | undefined) =>
  topLevelFields(Object.entries(customFields ?? {}), new Set([...CKAN_PACKAGE_KEYS, ...DATASET_RECORD_CKAN_KEYS]));

/** A resource's record, profile fields and free extras, in that order of precedence on a shared key. */
export function resourceMetadataDict(r: {
  metadata?: Record<string, unknown> | null;
  customFields?: Record<string, unknown> | null;
  customExtras?: Extra[] | null;
}) {
  const record = recordDict(DISTRIBUTION_RECORD, r.metadata);
  const taken = new Set([...CKAN_RESOURCE_KEYS, ...DISTRIBUTION_RECORD_CKAN_KEYS]);
  const custom = topLevelFields(Object.entries(r.customFields ?? {}), taken);
  const extras = topLevelFields(
    (r.customExtras ?? []).map((e) => [e.key, e.value]),
    new Set([...taken, ...Object.keys(custom)]),
  );
  return { ...record, ...custom, ...extras };
}
