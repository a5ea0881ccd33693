import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A cached embedding: the vector of one text (by its SHA-256) under one model. Search points name
 * their text's hash, so any vector index is rebuilt from here without embedding again, and a change of
 * model shows as points without a vector under the new model.
 */
export const Embedding = defineEntity({
  name: 'Embedding',
  tableName: 'embeddings',
  properties: {
    model: p.string().length(200).primary(),
    contentHash: p.string().length(64).primary(),
    dimensions: p.integer(),
    /** float32, little-endian. */
    vector: p.blob(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Embedding = InferEntity<typeof Embedding>;
