import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { createEmbeddingProvider } from './embeddings/create.ts';
import { createVectorIndex } from './vectors/create.ts';
import type { EmbeddingProvider } from './embeddings/provider.ts';
import type { IndexName, VectorIndex } from './vectors/vector-index.ts';

/**
 * The semantic half of search, shared by the API and the worker: the embedding model (null when
 * EMBEDDINGS_PROVIDER=none) and the vector index. Either may be down; search then answers keyword-only.
 */
export class SearchServices {
  private readonly ensured = new Map<IndexName, number>();

  constructor(
    readonly embeddings: EmbeddingProvider | null,
    readonly vectors: VectorIndex,
    readonly log: Logger,
  ) {}

  /** The index exists for vectors of this length; asked of the engine once per process and length. */
  async ensureIndex(index: IndexName, dimensions: number) {
    if (this.ensured.get(index) === dimensions) return;
    await this.vectors.ensure(index, dimensions);
    this.ensured.set(index, dimensions);
  }

  async close() {
    await Promise.allSettled([this.embeddings?.close(), this.vectors.close()]);
  }
}

export function createSearchServices(config: Config, log: Logger): SearchServices {
  const embeddings = createEmbeddingProvider(config.embeddings, log.child({ component: 'search' }));
  return new SearchServices(embeddings, createVectorIndex(config.vectors, embeddings?.model ?? null), log.child({ component: 'search' }));
}
