/**
 * A dataset's own fields, one line each: what it holds, its cap, and its names in CKAN's package dict
 * and in the feeds. The REST input and record schemas, the caps of POST /packages and of harvested
 * records, the harvest record, the one-statement read, the CKAN dict and the feeds are all derived from
 * it, so a new plain field is one line here (plus its column and migration).
 *
 * Not here: the fields that name other rows (`name`, `ownerOrg`, `tags`, `groups`), which are resolved,
 * and the system's (`state`, dates, provenance).
 */

/**
 * - `text`: trimmed text; `email`, `httpUrl`: text checked as such; `flag`: a boolean, false when unset.
 * - `max`: characters, the same as the column's length.
 * - `ckan`: its key in a CKAN package dict.
 * - `feeds`: where it goes when it is one value of one property. Fields the feeds build from several
 *   (title and notes with their fallbacks, the people, the license, DCAT's landing page) are written
 *   out in src/feeds and have no entry for that feed.
 */
export interface FieldDescriptor {
  kind: 'text' | 'email' | 'httpUrl' | 'flag';
  max?: number;
  min?: number;
  /** Stored upper-cased (resource formats: `csv` and `CSV` are one format). */
  upperCase?: true;
  ckan: string;
  feeds?: FeedMappings;
}

interface FeedMappings {
  /** A DCAT-AP property (prefixed: `dcat:version`) of the dataset or distribution; `iri` for a URL value. */
  dcat?: { property: `${string}:${string}`; iri?: true };
  /** Its key in DCAT-US data.json. */
  dataJson?: string;
  /** Its key in schema.org JSON-LD (and Croissant, which extends it). */
  schemaOrg?: string;
}

const PERSON = 300;
const EMAIL = 320;
/** Also the cap of a resource's URL. */
export const URL_LENGTH = 2_000;

/**
 * In the record's order; a field after `url` is presented after it everywhere. The positions that
 * CKAN and the record gave some fields before this table existed are kept where each is presented.
 */
export const DATASET_FIELDS = {
  title: { kind: 'text', max: 1_000, ckan: 'title' },
  notes: { kind: 'text', max: 100_000, ckan: 'notes' },
  licenseId: { kind: 'text', max: 100, min: 1, ckan: 'license_id' },
  private: { kind: 'flag', ckan: 'private' },
  author: { kind: 'text', max: PERSON, ckan: 'author' },
  authorEmail: { kind: 'email', max: EMAIL, ckan: 'author_email' },
  maintainer: { kind: 'text', max: PERSON, ckan: 'maintainer' },
  maintainerEmail: { kind: 'email', max: EMAIL, ckan: 'maintainer_email' },
  version: {
    kind: 'text',
    max: 100,
    ckan: 'version',
    feeds: { dcat: { property: 'dcat:version' }, schemaOrg: 'version' },
  },
  url: { kind: 'httpUrl', max: URL_LENGTH, ckan: 'url', feeds: { dataJson: 'landingPage' } },
} as const satisfies Record<string, FieldDescriptor>;

export type FieldTable = Record<string, FieldDescriptor>;

/** A field's value: a flag is a boolean, every other kind text; null when unset (a flag is false). */
type ValueOf<F extends FieldDescriptor> = F['kind'] extends 'flag' ? boolean : string | null;

/** Every field of a table with its value: what a record presents, what a harvest writes. */
export type FieldValues<T extends FieldTable> = { -readonly [K in keyof T]: ValueOf<T[K]> };

/** The fields in an input: an absent key is left alone, null clears. */
export type FieldInput<T extends FieldTable> = { -readonly [K in keyof T]?: ValueOf<T[K]> | null };

/** Each field under its CKAN key. */
export type CkanFields<T extends FieldTable> = { -readonly [K in keyof T as T[K]['ckan']]: ValueOf<T[K]> };

export type DatasetFieldValues = FieldValues<typeof DATASET_FIELDS>;

export const fieldNames = <T extends FieldTable>(table: T) => Object.keys(table) as Array<keyof T & string>;

const emptyValue = (f: FieldDescriptor) => (f.kind === 'flag' ? false : null);

/** The table's fields of `source` in the table's order, each unset one as its empty value. */
export function fieldValues<T extends FieldTable>(table: T, source: { [K in keyof T]?: unknown }): FieldValues<T> {
  return Object.fromEntries(fieldNames(table).map((k) => [k, source[k] ?? emptyValue(table[k]!)])) as FieldValues<T>;
}

/** The same values under their CKAN keys. */
export function ckanFields<T extends FieldTable>(table: T, source: { [K in keyof T]?: unknown }): CkanFields<T> {
  const values = fieldValues(table, source) as Record<string, unknown>;
  return Object.fromEntries(fieldNames(table).map((k) => [table[k]!.ckan, values[k]])) as CkanFields<T>;
}

/** The values as their columns hold them: unset as empty, formats upper-cased. */
export function storedValues<T extends FieldTable>(table: T, source: { [K in keyof T]?: unknown }): FieldValues<T> {
  const values = fieldValues(table, source) as Record<string, unknown>;
  for (const k of fieldNames(table)) {
    const value = values[k];
    if (table[k]!.upperCase && typeof value === 'string') values[k] = value.trim().toUpperCase() || null;
  }
  return values as FieldValues<T>;
}

/** Writes `values` onto an entity (the table's kinds match its columns): every field, or those `given`. */
export function assignFields<T extends FieldTable>(
  table: T,
  target: object,
  source: { [K in keyof T]?: unknown },
  given: (field: keyof T & string) => boolean = () => true,
) {
  const values = storedValues(table, source);
  for (const k of fieldNames(table)) if (given(k)) (target as Record<string, unknown>)[k] = values[k];
}

/** A field's column: snake_case of its name, as MikroORM's naming strategy makes it. */
export const columnOf = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
