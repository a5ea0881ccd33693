import { coverageColumns } from './coverage.ts';
import { DATASET_RECORD, mergedRecord, presentedRecord, type DatasetRecordValues } from './dataset-record.ts';
import { DISTRIBUTION_RECORD, type DistributionRecordValues } from './distribution-record.ts';
import type { Extra } from './extras.ts';

/** The metadata a dataset write may carry: the record's keys, the extras and the profile fields. */
export interface DatasetMetadataInput extends DatasetRecordValues {
  extras?: Extra[] | null;
  customFields?: Record<string, unknown> | null;
}

export interface DatasetMetadataColumns {
  metadata: Record<string, unknown>;
  extras: Extra[];
  customFields: Record<string, unknown>;
  temporalStart?: Date | null;
  temporalEnd?: Date | null;
  spatialBox?: string | null;
}

/**
 * Writes a dataset's metadata: `full` replaces it all (an omitted key clears), else only the keys given.
 * The coverage columns follow the record, so a search's filter reads what the record says.
 */
export function applyDatasetMetadata(target: DatasetMetadataColumns, input: DatasetMetadataInput, full: boolean) {
  const record = mergedRecord(DATASET_RECORD, target.metadata as DatasetRecordValues, input, full);
  target.metadata = record;
  if (full || 'extras' in input) target.extras = input.extras ?? [];
  if (full || 'customFields' in input) target.customFields = input.customFields ?? {};
  Object.assign(target, coverageColumns(record.temporal, record.spatial));
}

/** The record's keys, extras and profile fields as a dataset record presents them. */
export const presentDatasetMetadata = (d: Partial<DatasetMetadataColumns>) => ({
  ...presentedRecord(DATASET_RECORD, d.metadata as DatasetRecordValues),
  extras: d.extras ?? [],
  customFields: d.customFields ?? {},
});

export interface DistributionMetadataInput extends DistributionRecordValues {
  customExtras?: Extra[] | null;
  /** The values of the resource fields the metadata profiles define. */
  customFields?: Record<string, unknown> | null;
}

export function applyDistributionMetadata(
  target: { metadata: Record<string, unknown>; customExtras: Extra[]; customFields: Record<string, unknown> },
  input: DistributionMetadataInput,
  full: boolean,
) {
  target.metadata = mergedRecord(DISTRIBUTION_RECORD, target.metadata as DistributionRecordValues, input, full);
  if (full || 'customExtras' in input) target.customExtras = input.customExtras ?? [];
  if (full || 'customFields' in input) target.customFields = input.customFields ?? {};
}

export const presentDistributionMetadata = (r: {
  metadata?: Record<string, unknown> | null;
  customExtras?: Extra[] | null;
  customFields?: Record<string, unknown> | null;
}) => ({
  ...presentedRecord(DISTRIBUTION_RECORD, r.metadata as DistributionRecordValues),
  customExtras: r.customExtras ?? [],
  customFields: r.customFields ?? {},
});
