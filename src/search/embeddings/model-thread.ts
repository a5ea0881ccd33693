/**
 * The body of the embedding model's worker thread (local.ts starts it): loads the feature-extraction
 * pipeline once, then answers each batch with its mean-pooled, normalized vectors. ONNX Runtime's run
 * is synchronous for the thread that calls it; here that is not the event loop that answers requests.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { FeatureExtractionPipeline } from '@huggingface/transformers';

export interface ModelThreadOptions {
  /** A model folder, or a hub id when `offline` is false. */
  source: string;
  dtype: 'q8' | 'fp32';
  offline: boolean;
  /** transformers.js's download cache (its file checks read env.cacheDir, not the cache_dir option). */
  cacheDir: string;
}

export type ModelThreadRequest = { id: number; texts: string[] };
export type ModelThreadReply =
  | { kind: 'ready' }
  | { kind: 'load-failed'; message: string }
  | { kind: 'vectors'; id: number; width: number; data: Float32Array }
  | { kind: 'failed'; id: number; message: string };

const port = parentPort!;
const options = workerData as ModelThreadOptions;
const post = (reply: ModelThreadReply) => port.postMessage(reply);
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * sentence-transformers' max_seq_length for the MiniLM family: the tokenizer alone would allow 512, and
 * words past 256 only cost time (the model was trained on shorter texts).
 */
const MAX_TOKENS = 256;

/**
 * ONNX Runtime's threads spin while they wait for work by default: a core kept busy for nothing between
 * batches, taken from PostgreSQL and the event loop that feed them (on a busy 2-core machine the same
 * batches took 40% less CPU without it).
 */
const SESSION_OPTIONS = { extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } } };

async function load() {
  const { pipeline, env, mean_pooling } = await import('@huggingface/transformers');
  if (!options.offline) env.cacheDir = options.cacheDir;
  const extractor: FeatureExtractionPipeline = await pipeline('feature-extraction', options.source, {
    dtype: options.dtype,
    device: 'cpu',
    local_files_only: options.offline,
    cache_dir: options.cacheDir,
    session_options: SESSION_OPTIONS,
  });
  // The pipeline's own call, with the token limit it does not take: mean pooling, then L2 normalization.
  return async (texts: string[]) => {
    const inputs = extractor.tokenizer(texts, { padding: true, truncation: true, max_length: MAX_TOKENS });
    const { last_hidden_state } = await extractor.model(inputs);
    return mean_pooling(last_hidden_state, inputs.attention_mask).normalize(2, -1);
  };
}

load().then(
  (embed) => {
    port.on('message', async ({ id, texts }: ModelThreadRequest) => {
      try {
        const output = await embed(texts);
        const data = (output.data as Float32Array).slice();
        output.dispose();
        post({ kind: 'vectors', id, width: output.dims[1] as number, data });
      } catch (err) {
        post({ kind: 'failed', id, message: message(err) });
      }
    });
    post({ kind: 'ready' });
  },
  (err: unknown) => post({ kind: 'load-failed', message: message(err) }),
);
