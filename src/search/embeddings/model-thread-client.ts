import type { Worker } from 'node:worker_threads';
import { startModuleThread } from '../../thread-start.ts';
import type { ModelThreadOptions, ModelThreadReply } from './model-thread.ts';

interface Waiting {
  resolve: (vectors: { width: number; data: Float32Array }) => void;
  reject: (err: Error) => void;
}

/**
 * The embedding model in a worker thread of this process: ONNX Runtime runs a batch synchronously, so
 * in the main thread every batch would stall the event loop (requests, heartbeats, database replies)
 * for its whole duration. The thread does not keep the process alive while it has nothing to do.
 */
export class ModelThread {
  /** Set once the thread is gone (it crashed, exited or was closed); the owner starts a new one. */
  broken?: Error;
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  private readonly ready: Promise<void>;

  private constructor(options: ModelThreadOptions) {
    // Held open while the model loads (someone awaits it), let go once it waits for work.
    this.worker = startModuleThread(import.meta.url, 'model-thread', options);
    this.ready = new Promise((resolve, reject) => {
      this.worker.on('message', (reply: ModelThreadReply) => {
        if (reply.kind === 'ready') {
          this.worker.unref();
          return resolve();
        }
        if (reply.kind === 'load-failed') {
          this.stop(new Error(reply.message));
          void this.worker.terminate();
          return reject(this.broken);
        }
        const waiting = this.waiting.get(reply.id);
        this.waiting.delete(reply.id);
        if (this.waiting.size === 0) this.worker.unref();
        if (reply.kind === 'vectors') waiting?.resolve({ width: reply.width, data: reply.data });
        else waiting?.reject(new Error(reply.message));
      });
      const gone = (err: Error) => {
        this.stop(err);
        reject(err);
      };
      this.worker.on('error', (err) => gone(new Error(`the embedding thread failed: ${err.message}`)));
      this.worker.on('exit', (code) => gone(new Error(`the embedding thread exited (code ${code})`)));
    });
  }

  /** A thread with the model loaded; rejects with the load's own message. */
  static async start(options: ModelThreadOptions): Promise<ModelThread> {
    const thread = new ModelThread(options);
    await thread.ready;
    return thread;
  }

  /** One batch: its vectors one after the other, `width` floats each. */
  run(texts: string[]): Promise<{ width: number; data: Float32Array }> {
    if (this.broken) return Promise.reject(this.broken);
    const id = this.nextId++;
    this.worker.ref();
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, texts });
    });
  }

  async close(): Promise<void> {
    this.stop(new Error('the embedding thread was closed'));
    await this.worker.terminate();
  }

  private stop(err: Error) {
    this.broken ??= err;
    for (const waiting of this.waiting.values()) waiting.reject(this.broken);
    this.waiting.clear();
  }
}
