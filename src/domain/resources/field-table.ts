import type { FieldTable, FieldValues } from '../datasets/field-table.ts';

/**
 * A resource's own fields, as src/domain/datasets/field-table.ts describes a dataset's: the REST input
 * and record, the caps, the harvest record's resources, the CKAN resource dict and the feeds' distributions
 * are derived from it. Not here: `url` and `urlType` (a link needs one, an upload gets the service's),
 * and what the system writes (`size`, `hash`, `position`, `extras`).
 */
export const RESOURCE_FIELDS = {
  name: { kind: 'text', max: 1_000, ckan: 'name', feeds: { dataJson: 'title', schemaOrg: 'name' } },
  description: {
    kind: 'text',
    max: 20_000,
    ckan: 'description',
    feeds: { dcat: { property: 'dct:description' }, dataJson: 'description', schemaOrg: 'description' },
  },
  format: { kind: 'text', max: 100, upperCase: true, ckan: 'format' },
  mimetype: { kind: 'text', max: 200, ckan: 'mimetype' },
} as const satisfies FieldTable;

export type ResourceFieldValues = FieldValues<typeof RESOURCE_FIELDS>;
