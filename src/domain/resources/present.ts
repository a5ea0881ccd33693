import type { Resource } from '../../entities/index.ts';

/** What the record needs of a resource: an entity, or a plain row of the one-statement read (dates as ISO text). */
export type ResourceFields = Pick<
  Resource,
  'id' | 'name' | 'description' | 'url' | 'urlType' | 'format' | 'mimetype' | 'size' | 'hash' | 'position' | 'extras'
> & { dataset: { id: string } | Resource['dataset']; createdAt: Date | string; updatedAt: Date | string };

export const isoText = (value: Date | string) => (typeof value === 'string' ? value : value.toISOString());

export const presentResource = (r: ResourceFields) => ({
  id: r.id,
  packageId: (r.dataset as { id: string }).id,
  name: r.name ?? null,
  description: r.description ?? null,
  url: r.url ?? null,
  urlType: r.urlType,
  format: r.format ?? null,
  mimetype: r.mimetype ?? null,
  size: r.size ?? null,
  hash: r.hash ?? null,
  position: r.position,
  extras: r.extras,
  createdAt: isoText(r.createdAt),
  updatedAt: isoText(r.updatedAt),
});
