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
    name: p.string().length(100).unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Tag = InferEntity<typeof Tag>;
