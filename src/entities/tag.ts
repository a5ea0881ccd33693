import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';

export const Tag = defineEntity({
  name: 'Tag',
  tableName: 'tags',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    /** Real catalogs hold long tags (keyword lists joined with "/", up to ~300 characters in data.gov's). */
    name: p.string().length(500).unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Tag = InferEntity<typeof Tag>;
