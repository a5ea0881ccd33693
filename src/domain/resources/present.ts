import type { Resource } from '../../entities/index.ts';

export const presentResource = (r: Resource) => ({
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
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});
