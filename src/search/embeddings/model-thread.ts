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

async function load(): Promise<FeatureExtractionPipeline> {
  const { pipeline, env } = await import('@huggingface/transformers');
  if (!options.offline) env.cacheDir = options.cacheDir;
  return pipeline('feature-extraction', options.source, {
    dtype: options.dtype,
    device: 'cpu',
    local_files_only: options.offline,
    cache_dir: options.cacheDir,
  });
}

load().then(
  (extractor) => {
    port.on('message', async ({ id, texts }: ModelThreadRequest) => {
      try {
        const output = await extractor(texts, { pooling: 'mean', normalize: true });
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
