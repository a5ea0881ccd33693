import { z } from 'zod';
import type { FieldError } from '../errors.ts';

/**
 * A DCAT-US source's `filters` and `defaults`, as GSA's ckanext-datajson configures a data.json source:
 * `filters` leaves out the datasets whose field equals one of the values given (`{"accessLevel":
 * ["non-public"]}`), `defaults` fills the fields a dataset leaves empty (`{"programCode": ["000:000"]}`).
 * Both name DCAT-US 1.1 dataset fields and apply to the source's JSON before it is read, so an operator
 * writes them as the data.json does. Everything else of a data.json is imported as it comes.
 */

/** The DCAT-US 1.1 dataset fields and the JSON type of each (project-open-data.cio.gov/v1.1/schema/dataset.json). */
const text = z.string().min(1).max(2_000);
const texts = z.array(text).min(1).max(100);
export const DCAT_US_DATASET_FIELDS = {
  accessLevel: z.enum(['public', 'restricted public', 'non-public']),
  rights: text,
  accrualPeriodicity: text,
  bureauCode: z
    .array(z.string().regex(/^\d{3}:\d{2}$/, 'must hold bureau codes such as 015:11'))
    .min(1)
    .max(100),
  programCode: z
    .array(z.string().regex(/^\d{3}:\d{3}$/, 'must hold program codes such as 015:001'))
    .min(1)
    .max(100),
  contactPoint: z.strictObject({
    '@type': z.literal('vcard:Contact').optional(),
    fn: text,
    hasEmail: z.string().regex(/^mailto:\S+@\S+$/),
  }),
  describedBy: text,
  describedByType: text,
  conformsTo: text,
  dataQuality: z.boolean(),
  description: text,
  identifier: text,
  issued: text,
  keyword: texts,
  landingPage: text,
  language: texts,
  license: text,
  modified: text,
  primaryITInvestmentUII: text,
  publisher: z.looseObject({ name: text }),
  references: texts,
  spatial: text,
  systemOfRecords: text,
  temporal: text,
  isPartOf: text,
  theme: texts,
  title: text,
} as const;
type DcatUsField = keyof typeof DCAT_US_DATASET_FIELDS;
const FIELD_NAMES = Object.keys(DCAT_US_DATASET_FIELDS) as DcatUsField[];

const scalar = z.union([z.string().max(2_000), z.number(), z.boolean()]);
export const sourceFilters = z
  .record(z.string(), z.array(scalar).min(1, 'must list at least one value').max(100))
  .describe(
    'DCAT-US sources: leave out the datasets whose field equals one of these values, as ckanext-datajson does; a field holding a list is matched by any of its items. Example: {"accessLevel": ["non-public"]}',
  );
export const sourceDefaults = z
  .record(z.string(), z.unknown())
  .describe(
    'DCAT-US sources: a value for each field a dataset leaves empty, written as the data.json writes that field. Example: {"bureauCode": ["000:00"], "programCode": ["000:000"]}',
  );
export type SourceFilters = z.infer<typeof sourceFilters>;
export type SourceDefaults = Record<string, unknown>;

/** What is wrong with a source's configuration, each error naming its field (`filters.accessLevel`). */
export function sourceConfigErrors(type: string, filters: SourceFilters, defaults: SourceDefaults): FieldError[] {
  const errors: FieldError[] = [];
  const given = Object.keys(filters).length + Object.keys(defaults).length;
  if (given && type !== 'dcat-us') {
    const path = Object.keys(filters).length ? 'filters' : 'defaults';
    return [{ path, message: `applies to dcat-us sources only (this one is ${type}): leave it empty` }];
  }
  const known = (key: string) => (FIELD_NAMES as string[]).includes(key);
  for (const [path, config] of [
    ['filters', filters],
    ['defaults', defaults],
  ] as const) {
    if (Object.keys(config).length > 50) errors.push({ path, message: 'must have at most 50 fields' });
    for (const key of Object.keys(config)) {
      if (!known(key)) errors.push({ path: `${path}.${key}`, message: `is not a DCAT-US 1.1 dataset field (${FIELD_NAMES.join(', ')})` });
    }
  }
  for (const [key, value] of Object.entries(defaults)) {
    if (!known(key)) continue;
    const parsed = DCAT_US_DATASET_FIELDS[key as DcatUsField].safeParse(value);
    if (!parsed.success)
      errors.push({ path: `defaults.${key}`, message: parsed.error.issues[0]?.message ?? 'is not a value of this field' });
  }
  return errors;
}

const matchText = (value: unknown) => (typeof value === 'string' ? value.trim().toLowerCase() : JSON.stringify(value));
const isEmpty = (value: unknown) =>
  value === undefined || value === null || (typeof value === 'string' && !value.trim()) || (Array.isArray(value) && value.length === 0);

/** The filter that leaves `dataset` out, as `field=value`, or null when none does. */
export function excludedBy(dataset: Record<string, unknown>, filters: SourceFilters): string | null {
  for (const [field, values] of Object.entries(filters)) {
    const held = dataset[field];
    const wanted = new Set(values.map(matchText));
    const hit = (Array.isArray(held) ? held : [held]).find((v) => !isEmpty(v) && wanted.has(matchText(v)));
    if (hit !== undefined) return `${field}=${typeof hit === 'string' ? hit : JSON.stringify(hit)}`;
  }
  return null;
}

/** `dataset` with each empty field that has a default given its default. */
export function withDefaults(dataset: Record<string, unknown>, defaults: SourceDefaults): Record<string, unknown> {
  const missing = Object.entries(defaults).filter(([field]) => isEmpty(dataset[field]));
  return missing.length ? { ...dataset, ...Object.fromEntries(missing) } : dataset;
}
