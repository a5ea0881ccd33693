import type { FieldError } from '../errors.ts';
import { RESOURCE_FIELDS } from '../resources/field-table.ts';
import { DATASET_FIELDS, URL_LENGTH, type FieldInput, type FieldTable } from './field-table.ts';

/**
 * How much one dataset may hold: the caps of POST /packages (its zod schema reads them from here) and of
 * harvested records (src/domain/harvest/), one rule for both; each field's length is its `max` in the
 * field tables (field-table.ts). Sized on real catalogs (issue 18): the
 * 1,878 records of data.gov agencies' catalogs hold up to 445 resources, 141 tags and tags of 298
 * characters; the caps leave an order of magnitude over that and stop what no catalog holds.
 */
export const DATASET_LIMITS = {
  resources: 5_000,
  tags: 1_000,
  /** Characters of one tag name (the `tags.name` column). */
  tagLength: 500,
  groups: 100,
  resourceUrl: URL_LENGTH,
} as const;

/** Link resources may point at http, https or ftp (real catalogs list ftp downloads); the pipeline fetches only http(s). */
export const LINK_PROTOCOLS = /^(https?|ftp)$/;

const thousands = (n: number) => n.toLocaleString('en-US');

/** "too big: 6,000 resources (at most 5,000)": the message of a count over its cap, in the 422 and in a harvest report. */
export const tooMany = (count: number, what: string, max: number) => `too big: ${thousands(count)} ${what} (at most ${thousands(max)})`;

export const tooLong = (length: number, max: number) => `too long: ${thousands(length)} characters (at most ${thousands(max)})`;

/** What a harvested record (already mapped to Almanac's fields) breaks of the caps above and the fields', each with its path. */
export interface LimitedRecord extends FieldInput<typeof DATASET_FIELDS> {
  tags: string[];
  groups: unknown[];
  resources: Array<{ url: string } & FieldInput<typeof RESOURCE_FIELDS>>;
}

export function datasetLimitErrors(r: LimitedRecord): FieldError[] {
  const L = DATASET_LIMITS;
  const errors: FieldError[] = [];
  const count = (path: string, n: number, what: string, max: number) => {
    if (n > max) errors.push({ path, message: tooMany(n, what, max) });
  };
  const length = (path: string, value: unknown, max: number | undefined) => {
    if (max !== undefined && typeof value === 'string' && value.length > max) errors.push({ path, message: tooLong(value.length, max) });
  };
  const fields = (table: FieldTable, record: object, prefix = '') => {
    for (const [name, f] of Object.entries(table)) length(`${prefix}${name}`, (record as Record<string, unknown>)[name], f.max);
  };
  count('resources', r.resources.length, 'resources', L.resources);
  count('tags', r.tags.length, 'tags', L.tags);
  count('groups', r.groups.length, 'groups', L.groups);
  r.tags.forEach((t, i) => {
    if (t.length > L.tagLength) errors.push({ path: `tags.${i}`, message: `tag "${t}" is ${tooLong(t.length, L.tagLength)}` });
  });
  fields(DATASET_FIELDS, r);
  r.resources.forEach((res, i) => {
    length(`resources.${i}.url`, res.url, L.resourceUrl);
    fields(RESOURCE_FIELDS, res, `resources.${i}.`);
  });
  return errors;
}
