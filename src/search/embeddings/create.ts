import type { Config } from '../../config.ts';
import { LocalEmbeddingProvider } from './local.ts';
import { OpenAIEmbeddingProvider } from './openai.ts';
import type { EmbeddingProvider } from './provider.ts';

/** The configured provider, or null when embeddings are off (search is then keyword-only). */
export function createEmbeddingProvider(config: Config['embeddings']): EmbeddingProvider | null {
  switch (config.provider) {
    case 'local':
      return new LocalEmbeddingProvider(config);
    case 'openai':
      return new OpenAIEmbeddingProvider(config);
    case 'none':
      return null;
  }
}
