import type { FieldError } from '../errors.ts';

/**
 * How much one dataset may hold: the caps of POST /packages (its zod schema reads them from here) and of
 * harvested records (src/domain/harvest/), one rule for both. Sized on real catalogs (issue 18): the
 * 1,878 records of data.gov agencies' catalogs hold up to 445 resources, 141 tags and tags of 298
 * characters; the caps leave an order of magnitude over that and stop what no catalog holds.
 */
export const DATASET_LIMITS = {
  resources: 5_000,
  tags: 1_000,
  /** Characters of one tag name (the `tags.name` column). */
  tagLength: 500,
  groups: 100,
  title: 1_000,
  notes: 100_000,
  person: 300,
  email: 320,
  version: 100,
  licenseId: 100,
  url: 2_000,
  resourceName: 1_000,
  resourceDescription: 20_000,
  format: 100,
  mimetype: 200,
} as const;

/** Link resources may point at http, https or ftp (real catalogs list ftp downloads); the pipeline fetches only http(s). */
export const LINK_PROTOCOLS = /^(https?|ftp)$/;

const thousands = (n: number) => n.toLocaleString('en-US');

/** "too big: 6,000 resources (at most 5,000)": the message of a count over its cap, in the 422 and in a harvest report. */
export const tooMany = (count: number, what: string, max: number) => `too big: ${thousands(count)} ${what} (at most ${thousands(max)})`;

export const tooLong = (length: number, max: number) => `too long: ${thousands(length)} characters (at most ${thousands(max)})`;

/** What a harvested record (already mapped to Almanac's fields) breaks of the caps above, each with its path. */
export interface LimitedRecord {
  title: string | null;
  notes: string | null;
  tags: string[];
  groups: unknown[];
  licenseId: string | null;
  author: string | null;
  authorEmail: string | null;
  maintainer: string | null;
  maintainerEmail: string | null;
  version: string | null;
  url: string | null;
  resources: Array<{ url: string; name: string | null; description: string | null; format: string | null; mimetype: string | null }>;
}

export function datasetLimitErrors(r: LimitedRecord): FieldError[] {
  const L = DATASET_LIMITS;
  const errors: FieldError[] = [];
  const count = (path: string, n: number, what: string, max: number) => {
    if (n > max) errors.push({ path, message: tooMany(n, what, max) });
  };
  const length = (path: string, value: string | null, max: number) => {
    if (value && value.length > max) errors.push({ path, message: tooLong(value.length, max) });
  };
  count('resources', r.resources.length, 'resources', L.resources);
  count('tags', r.tags.length, 'tags', L.tags);
  count('groups', r.groups.length, 'groups', L.groups);
  r.tags.forEach((t, i) => {
    if (t.length > L.tagLength) errors.push({ path: `tags.${i}`, message: `tag "${t}" is ${tooLong(t.length, L.tagLength)}` });
  });
  length('title', r.title, L.title);
  length('notes', r.notes, L.notes);
  length('licenseId', r.licenseId, L.licenseId);
  length('author', r.author, L.person);
  length('maintainer', r.maintainer, L.person);
  length('authorEmail', r.authorEmail, L.email);
  length('maintainerEmail', r.maintainerEmail, L.email);
  length('version', r.version, L.version);
  length('url', r.url, L.url);
  r.resources.forEach((res, i) => {
    length(`resources.${i}.url`, res.url, L.url);
    length(`resources.${i}.name`, res.name, L.resourceName);
    length(`resources.${i}.description`, res.description, L.resourceDescription);
    length(`resources.${i}.format`, res.format, L.format);
    length(`resources.${i}.mimetype`, res.mimetype, L.mimetype);
  });
  return errors;
}
