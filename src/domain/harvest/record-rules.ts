import { createHash } from 'node:crypto';
import { DATASET_FIELDS, fieldNames, fieldValues, type DatasetFieldValues, type FieldDescriptor } from '../datasets/field-table.ts';
import { datasetLimitErrors, LINK_PROTOCOLS } from '../datasets/limits.ts';
import type { FieldError } from '../errors.ts';
import { RESOURCE_FIELDS, type ResourceFieldValues } from '../resources/field-table.ts';
import { email } from '../users/fields.ts';
import type { HarvestItem, HarvestRecord, HarvestResource } from './record.ts';
import { customFieldsErrors, extrasErrors, mapDatasetMetadata, mapDistributionMetadata } from './record-metadata.ts';

/**
 * Harvested records carry no license more often than not; CKAN's own "License not specified" stands in,
 * so the record can be active (a license is one of the publish requirements).
 */
const NO_LICENSE = 'notspecified';

/** The columns of harvest_run_records.remote_id / datasets.harvest_remote_id and datasets.harvest_remote_url. */
export const MAX_REMOTE_ID = 1000;
const MAX_REMOTE_URL = 2000;

export type MappedResource = HarvestResource & ResourceFieldValues;

/**
 * A record as it is written: every field of the tables present (null when the reader left it out), tags
 * split and deduplicated, one resource per URL. Its hash decides `unchanged`.
 */
export type MappedRecord = Omit<HarvestRecord, 'modified' | 'resources'> & DatasetFieldValues & { resources: MappedResource[] };

/** A rule of the record broken where only writing finds it (its organization): the record fails, the run goes on. */
export class RecordFailed extends Error {}

/**
 * The same record as CKAN would read it: a tag holding commas is CKAN's `tag_string`, so it is split
 * there (Almanac refuses commas in tag names, as CKAN does); tags trimmed and deduplicated; a resource
 * per URL, the first one listing it (a URL is unique within a dataset); no blank URLs.
 */
export function mapRecord(source: HarvestRecord): MappedRecord {
  const record = storable(source);
  const tags = [
    ...new Set(
      record.tags
        .flatMap((t) => t.split(','))
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  ].sort(); // one order for every run: concurrent first uses of tags lock them in the same order
  const seen = new Set<string>();
  const resources = record.resources
    .map((r) => {
      const meta = mapDistributionMetadata(r.metadata, r.customExtras);
      return { ...r, ...fieldValues(RESOURCE_FIELDS, r), url: r.url.trim(), metadata: meta.metadata, customExtras: meta.extras };
    })
    .filter((r) => r.url && !seen.has(r.url) && seen.add(r.url));
  const { modified: _modified, ...rest } = record;
  // The record's page at the source is only provenance: one longer than its column is dropped, not a failure.
  const remoteUrl = record.remoteUrl && record.remoteUrl.length <= MAX_REMOTE_URL ? record.remoteUrl : null;
  const fields = fieldValues(DATASET_FIELDS, record);
  const { metadata, extras } = mapDatasetMetadata(record.metadata, record.extras);
  return {
    ...rest,
    ...fields,
    title: record.title,
    remoteUrl,
    tags,
    resources,
    licenseId: record.licenseId || NO_LICENSE,
    metadata,
    extras,
    customFields: record.customFields ?? {},
  };
}

/**
 * The key a remote id is recorded under in the run: the id itself, or for one longer than its column
 * (which fails), its first 900 characters, `#` and a sha256 prefix of the whole, so the failure is recorded
 * once and a replay finds it.
 */
export function runRecordKey(remoteId: string): string {
  if (remoteId.length <= MAX_REMOTE_ID) return remoteId;
  return `${remoteId.slice(0, 900)}#${createHash('sha256').update(remoteId).digest('hex').slice(0, 32)}`;
}

export const itemKey = (item: HarvestItem) => runRecordKey(storable(item.kind === 'record' ? item.record.remoteId : item.remoteId));

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text PostgreSQL can store: real catalogs hold unpaired surrogates (a JSON escape cut in half) and NUL
 * characters, which POST /packages refuses; a harvest cannot ask the source to mend them, so a lone
 * surrogate becomes U+FFFD and a NUL goes.
 */
export function storable<T>(value: T): T {
  if (typeof value === 'string') return value.replace(LONE_SURROGATE, '\ufffd').replaceAll('\0', '') as T;
  if (Array.isArray(value)) return value.map(storable) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, storable(v)])) as T;
  }
  return value;
}

function isUrl(value: string, protocols: RegExp) {
  try {
    return protocols.test(new URL(value).protocol.replace(/:$/, ''));
  } catch {
    return false;
  }
}

/** The checks of a kind that a length cap does not make, as the REST schemas make them. */
const KIND_RULES: Partial<Record<FieldDescriptor['kind'], { valid: (value: string) => boolean; message: string }>> = {
  httpUrl: { valid: (value) => isUrl(value, /^https?$/), message: 'must be an http(s) URL' },
  email: { valid: (value) => email.safeParse(value).success, message: 'must be an email address' },
};

/** What POST /packages would refuse in this record, with the same messages (src/domain/datasets/limits.ts). */
export function recordErrors(r: MappedRecord): FieldError[] {
  const errors = datasetLimitErrors(r);
  for (const key of fieldNames(DATASET_FIELDS)) {
    const rule = KIND_RULES[DATASET_FIELDS[key].kind];
    const value = r[key];
    if (rule && typeof value === 'string' && value && !rule.valid(value)) errors.push({ path: key, message: rule.message });
  }
  errors.push(...extrasErrors(r.extras ?? [], 'extras'));
  errors.push(...customFieldsErrors(r.customFields ?? {}, 'customFields'));
  r.resources.forEach((res, i) => {
    errors.push(...extrasErrors(res.customExtras ?? [], `resources.${i}.customExtras`));
    if (!isUrl(res.url, LINK_PROTOCOLS)) errors.push({ path: `resources.${i}.url`, message: 'must be an http(s) or ftp URL' });
  });
  return errors;
}

/** The run report's reason for a record that broke rules. */
export const describeErrors = (errors: FieldError[]) =>
  errors
    .map((e) => `${e.path}: ${e.message}`)
    .join('; ')
    .slice(0, 1000);

/** sha256 of the mapped record as canonical JSON (keys sorted): equal hashes, nothing to write. */
export function recordHash(r: MappedRecord): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
          )
        : v;
  return createHash('sha256')
    .update(JSON.stringify(canonical(r)))
    .digest('hex');
}
