import type { Config } from '../../config.ts';
import { EmbeddedVectorIndex } from './embedded.ts';
import { QdrantVectorIndex } from './qdrant.ts';
import type { VectorIndex } from './vector-index.ts';

/**
 * Qdrant's collections are named after the embedding model (`almanac_<model>_<index>`): vectors of
 * another model are never mixed in. After a change of model the new collections start empty, the
 * stats show the drift, and a reindex fills them from the embeddings cache and the model.
 */
export const collectionPrefix = (model: string | null) =>
  `almanac_${
    model
      ? `${model
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '_')
          .replace(/^_|_$/g, '')}_`
      : ''
  }`;

export const createVectorIndex = (vectors: Config['vectors'], model: string | null): VectorIndex =>
  vectors.mode === 'qdrant'
    ? new QdrantVectorIndex({ url: vectors.url, apiKey: vectors.apiKey, collectionPrefix: collectionPrefix(model) })
    : new EmbeddedVectorIndex();
