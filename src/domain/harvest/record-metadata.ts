import type { z } from 'zod';
import { DATASET_RECORD, recordKeys, storedRecord, type RecordTable, type RecordValues } from '../metadata/dataset-record.ts';
import { DISTRIBUTION_RECORD } from '../metadata/distribution-record.ts';
import { customFields as customFieldsSchema, extras as extrasSchema, extraText, withExtras, type Extra } from '../metadata/extras.ts';
import type { FieldError } from '../errors.ts';

/**
 * A harvested record's metadata, checked with the schemas REST uses. A value that does not fit its typed
 * place (a bureau code of the wrong shape, a date in prose) is not dropped: it goes to the extras under
 * the record's key, as the source wrote it (text as is, anything else as its JSON), so it still comes back
 * out (the feeds write an extra whose key is one of theirs).
 */
export function mapRecordValues<T extends RecordTable>(table: T, given: Record<string, unknown> | undefined, extras: Extra[] | undefined) {
  const valid: Record<string, unknown> = {};
  const misfits: Extra[] = [];
  for (const key of recordKeys(table)) {
    const value = given?.[key];
    if (value === undefined || value === null) continue;
    const parsed = (table[key]!.schema as z.ZodType).safeParse(value);
    if (parsed.success) valid[key] = parsed.data;
    else misfits.push({ key, value: extraText(value) });
  }
  return { metadata: storedRecord(table, valid as RecordValues<T>), extras: withExtras(extras ?? [], misfits) };
}

export const mapDatasetMetadata = (given: Record<string, unknown> | undefined, extras: Extra[] | undefined) =>
  mapRecordValues(DATASET_RECORD, given, extras);
export const mapDistributionMetadata = (given: Record<string, unknown> | undefined, extras: Extra[] | undefined) =>
  mapRecordValues(DISTRIBUTION_RECORD, given, extras);

/** What the extras break of their caps (a record over them fails, as POST /packages would refuse it). */
export function extrasErrors(pairs: Extra[], path: string): FieldError[] {
  const parsed = extrasSchema.safeParse(pairs);
  return parsed.success ? [] : parsed.error.issues.slice(0, 5).map((i) => ({ path: [path, ...i.path].join('.'), message: i.message }));
}

/** What a record's profile values break of their caps. */
export function customFieldsErrors(values: Record<string, unknown>, path: string): FieldError[] {
  const parsed = customFieldsSchema.safeParse(values);
  return parsed.success ? [] : parsed.error.issues.slice(0, 5).map((i) => ({ path: [path, ...i.path].join('.'), message: i.message }));
}
