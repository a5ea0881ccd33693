import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * Datasets whose vectors did not reach the vector index (Qdrant out of reach when a sync or the backlog
 * pushed them): the vector backlog pushes them again once the index answers (src/search/index-outbox.ts).
 */
export const VectorIndexPending = defineEntity({
  name: 'VectorIndexPending',
  tableName: 'vector_index_pending',
  properties: {
    datasetId: p.uuid().primary(),
    /** When the last push failed: a row is cleared only by a push that began after it. */
    since: p.datetime(),
  },
});
export type VectorIndexPending = InferEntity<typeof VectorIndexPending>;
