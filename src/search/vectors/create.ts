import type { Config } from '../../config.ts';
import { EmbeddedVectorIndex } from './embedded.ts';
import { QdrantVectorIndex } from './qdrant.ts';
import type { VectorIndex } from './vector-index.ts';

export const createVectorIndex = (vectors: Config['vectors']): VectorIndex =>
  vectors.mode === 'qdrant' ? new QdrantVectorIndex({ url: vectors.url, apiKey: vectors.apiKey }) : new EmbeddedVectorIndex();
