import type { Group } from '../../entities/index.ts';

export const presentGroup = (g: Group) => ({
  id: g.id,
  name: g.name,
  title: g.title,
  description: g.description ?? null,
  imageUrl: g.imageUrl ?? null,
  state: g.state,
  createdAt: g.createdAt.toISOString(),
  updatedAt: g.updatedAt.toISOString(),
});

/** What the kind is called in messages. */
export const kindLabel = (kind: Group['kind']) => (kind === 'organization' ? 'Organization' : 'Category');
