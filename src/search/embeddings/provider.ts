/**
 * Turns text into vectors for semantic search. Implementations: a local ONNX sentence-embedding model
 * (local.ts) and any OpenAI-compatible `/v1/embeddings` server (openai.ts). Vectors are unit length, so
 * a dot product is their cosine similarity.
 */
export interface EmbeddingProvider {
  /** Recorded with every stored vector: a different model means the vectors must be rebuilt. */
  readonly model: string;
  /** The vector length; loads the model (or asks the server) on first call. */
  dimensions(): Promise<number>;
  /** One unit-length vector per text, in order; batches internally. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Whether it can embed now (model loaded or loadable, server reachable), for /api/health. */
  healthy(): Promise<boolean>;
  close(): Promise<void>;
}

export class EmbeddingsUnavailable extends Error {}
