import type { Resource } from '../../entities/index.ts';
import { fieldValues, type FieldInput } from '../datasets/field-table.ts';
import { presentDistributionMetadata } from '../metadata/record-io.ts';
import { RESOURCE_FIELDS } from './field-table.ts';

/** What the record needs of a resource: an entity, or a plain row of the one-statement read (dates as ISO text). */
export type ResourceFields = Pick<Resource, 'id' | 'url' | 'urlType' | 'size' | 'hash' | 'position' | 'extras'> &
  Partial<Pick<Resource, 'metadata' | 'customExtras' | 'customFields'>> &
  FieldInput<typeof RESOURCE_FIELDS> & {
    dataset: { id: string } | Resource['dataset'];
    createdAt: Date | string;
    updatedAt: Date | string;
  };

export const isoText = (value: Date | string) => (typeof value === 'string' ? value : value.toISOString());

/** The resource record of DESIGN §4: the table's fields after `mimetype`, but for the four placed before it had one. */
export function presentResource(r: ResourceFields) {
  const { name, description, format, mimetype, ...fields } = fieldValues(RESOURCE_FIELDS, r);
  return {
    id: r.id,
    packageId: (r.dataset as { id: string }).id,
    name,
    description,
    url: r.url ?? null,
    urlType: r.urlType,
    format,
    mimetype,
    ...fields,
    ...presentDistributionMetadata(r),
    size: r.size ?? null,
    hash: r.hash ?? null,
    position: r.position,
    extras: r.extras,
    createdAt: isoText(r.createdAt),
    updatedAt: isoText(r.updatedAt),
  };
}
