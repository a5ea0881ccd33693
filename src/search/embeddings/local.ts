import fs from 'node:fs';
import path from 'node:path';
import { ModelThread } from './model-thread-client.ts';
import { EmbeddingsUnavailable, type EmbeddingProvider } from './provider.ts';

export interface LocalEmbeddingOptions {
  /** A model id such as `Xenova/all-MiniLM-L6-v2`. */
  model: string;
  /**
   * A folder holding `<model>/config.json`, tokenizer files and `onnx/model*.onnx`; loaded offline. A
   * promise while the folder is still being fetched: until it settles the provider answers unavailable
   * at once, so search runs keyword-only meanwhile instead of waiting.
   */
  modelPath?: string | Promise<string>;
  /** transformers.js's download cache, used when no modelPath is given. */
  cacheDir: string;
  batchSize: number;
}

const REQUIRED_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];
/** After a failed load, healthy() answers from memory for this long instead of trying again. */
const FAILED_LOAD_MEMORY_MS = 30_000;

/**
 * A sentence-embedding model run in this process by ONNX Runtime (through transformers.js): mean pooling
 * over token vectors, then L2 normalization, as sentence-transformers does for the MiniLM family.
 */
export class LocalEmbeddingProvider implements EmbeddingProvider {
  readonly model: string;
  /** Which ONNX file was loaded (`onnx/model_quantized.onnx` or `onnx/model.onnx`), once loaded. */
  loadedFile?: string;
  private loading?: Promise<ModelThread>;
  private modelPath?: string;
  private fetching?: 'pending' | Error;
  private lastFailure?: number;
  private dims?: number;
  // One inference at a time: concurrent runs only fight over the same cores, and a search query then
  // waits for at most one batch of a long reindex instead of all of it.
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: LocalEmbeddingOptions) {
    this.model = options.model;
    if (typeof options.modelPath === 'string' || options.modelPath === undefined) {
      this.modelPath = options.modelPath;
    } else {
      this.fetching = 'pending';
      options.modelPath.then(
        (dir) => {
          this.modelPath = dir;
          this.fetching = undefined;
        },
        (err: Error) => (this.fetching = err),
      );
    }
  }

  async dimensions(): Promise<number> {
    if (this.dims === undefined) this.dims = (await this.embed(['dimensions']))[0].length;
    return this.dims;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const thread = await this.pipeline();
    // A batch is padded to its longest text: batching texts of similar length wastes the least work.
    const order = texts.map((_, i) => i).sort((a, b) => texts[a].length - texts[b].length);
    const vectors: Float32Array[] = new Array(texts.length);
    for (let i = 0; i < order.length; i += this.options.batchSize) {
      const slots = order.slice(i, i + this.options.batchSize);
      const run = this.queue.then(() => thread.run(slots.map((j) => texts[j])));
      this.queue = run.catch(() => undefined);
      const { width, data } = await run.catch((err: Error) => {
        throw thread.broken ? new EmbeddingsUnavailable(`embedding model ${this.model}: ${err.message}`) : err;
      });
      slots.forEach((slot, r) => (vectors[slot] = data.slice(r * width, (r + 1) * width)));
    }
    return vectors;
  }

  async healthy(): Promise<boolean> {
    if (!this.loading && this.lastFailure !== undefined && Date.now() - this.lastFailure < FAILED_LOAD_MEMORY_MS) return false;
    try {
      await this.pipeline();
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    const loading = this.loading;
    this.loading = undefined;
    const thread = await loading?.catch(() => undefined);
    await this.queue;
    await thread?.close();
  }

  /**
   * Loads once; callers arriving meanwhile share the load, and a failed load is tried again next time,
   * as is a thread that died (its batches fail EmbeddingsUnavailable, the next call starts a new one).
   */
  private async pipeline(): Promise<ModelThread> {
    const current = this.loading;
    const loaded = await current?.catch(() => undefined);
    // Only the caller that finds the broken thread still current replaces it; the others join that load.
    if (loaded?.broken && this.loading === current) this.loading = undefined;
    if (this.fetching === 'pending')
      return Promise.reject(new EmbeddingsUnavailable(`embedding model ${this.model} is still being fetched`));
    if (this.fetching) return Promise.reject(new EmbeddingsUnavailable(this.fetching.message));
    this.loading ??= this.load().catch((err) => {
      this.loading = undefined;
      this.lastFailure = Date.now();
      throw err;
    });
    return this.loading;
  }

  private async load(): Promise<ModelThread> {
    const { model, cacheDir } = this.options;
    const modelPath = this.modelPath;
    let source: string;
    let dir: string;
    if (modelPath) {
      dir = path.join(modelPath, model);
      source = dir;
    } else {
      dir = path.join(cacheDir, model);
      // Its cache holds the same layout as a model folder: once filled, load it as one, with no network.
      source = fs.existsSync(path.join(dir, 'config.json')) ? dir : model;
    }
    const offline = source === dir;
    const onnx = pickOnnxFile(dir);
    if (offline) {
      const missing = REQUIRED_FILES.filter((f) => !fs.existsSync(path.join(dir, f)));
      if (!onnx) missing.push('onnx/model_quantized.onnx (or onnx/model.onnx)');
      if (missing.length > 0) {
        throw new EmbeddingsUnavailable(
          `embedding model ${model} not found in ${dir}: missing ${missing.join(', ')}` +
            (modelPath ? ' (EMBEDDINGS_MODEL_PATH; `almanac provision model` lays out the default model)' : ''),
        );
      }
    }
    // Prefer the int8 export when both are there: a quarter of the size and faster on CPU, for a tiny loss.
    const dtype = onnx === 'onnx/model.onnx' ? 'fp32' : 'q8';
    try {
      // An absolute folder as the model id loads from there alone; the thread's own `env` holds the
      // cache folder, so providers on different folders can live in one process.
      const thread = await ModelThread.start({ source, dtype, offline, cacheDir });
      this.loadedFile = dtype === 'q8' ? 'onnx/model_quantized.onnx' : 'onnx/model.onnx';
      return thread;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new EmbeddingsUnavailable(
        `could not load embedding model ${model} from ${offline ? dir : `the model hub (cache ${cacheDir})`}: ${reason}`,
      );
    }
  }
}

function pickOnnxFile(dir: string): string | undefined {
  return ['onnx/model_quantized.onnx', 'onnx/model.onnx'].find((f) => fs.existsSync(path.join(dir, f)));
}
