import type { Worker } from 'node:worker_threads';
import { startModuleThread } from '../../thread-start.ts';
import type { AnnThreadOptions, AnnThreadReply, AnnThreadRequest } from './ann-thread.ts';

/** Vectors per insertion message (6 MB at 384 dimensions). */
const ADD_CHUNK = 4096;

/**
 * An embedded index's HNSW graph, kept in a thread of its own (ann-thread.ts), over numbered vectors
 * (the store's distinct texts). Additions are sent as the store changes and answered once inserted; until
 * then their keys are in flight, and a search looks at those itself. A thread that fails is given up
 * (`broken`), and the store's exact pass answers from then on.
 */
export class AnnGraph {
  broken?: Error;
  private readonly worker: Worker;
  /** Keys sent for insertion and not yet answered, a batch per message, oldest first. */
  private readonly batches: Int32Array[] = [];
  private inFlightCount = 0;
  private readonly searches = new Map<number, { resolve: (keys: Int32Array) => void; reject: (err: Error) => void }>();
  private nextId = 0;
  private settled: Array<() => void> = [];

  constructor(private readonly options: AnnThreadOptions) {
    this.worker = startModuleThread(import.meta.url, 'ann-thread', options);
    // The thread only serves this process's requests: it must not keep the process alive.
    this.worker.unref();
    this.worker.on('message', (reply: AnnThreadReply) => {
      if (reply.kind === 'added') {
        this.inFlightCount -= this.batches.shift()?.length ?? 0;
        if (this.batches.length === 0) this.settle();
      } else if (reply.kind === 'found') {
        this.searches.get(reply.id)?.resolve(reply.keys);
        this.searches.delete(reply.id);
      } else if (reply.id !== undefined) {
        this.searches.get(reply.id)?.reject(new Error(reply.message));
        this.searches.delete(reply.id);
      } else {
        this.stop(new Error(`the vector graph failed: ${reply.message}`));
        // Its graph is in doubt and may hold hundreds of MB: the thread goes, and the store builds anew.
        void this.worker.terminate();
      }
    });
    this.worker.on('error', (err) => this.stop(new Error(`the vector graph thread failed: ${err.message}`)));
    this.worker.on('exit', (code) => this.stop(new Error(`the vector graph thread exited (code ${code})`)));
  }

  /** How many keys the graph may not hold yet (or hold with an older vector). */
  get inFlight() {
    return this.inFlightCount;
  }

  /** The keys in flight. */
  *inFlightKeys(): Generator<number> {
    for (const batch of this.batches) yield* batch;
  }

  /** Resolves once every addition sent so far is in the graph (or the graph is given up). */
  whenSettled(): Promise<void> {
    return this.batches.length === 0 || this.broken ? Promise.resolve() : new Promise((resolve) => this.settled.push(resolve));
  }

  /** (Re)inserts each key with its unit vector, copied as it is now. */
  add(entries: Array<{ key: number; vector: Float32Array }>) {
    if (this.broken) return;
    const { dimensions } = this.options;
    for (let i = 0; i < entries.length; i += ADD_CHUNK) {
      const chunk = entries.slice(i, i + ADD_CHUNK);
      const keys = Int32Array.from(chunk, (e) => e.key);
      const matrix = new Float32Array(chunk.length * dimensions);
      chunk.forEach((e, j) => matrix.set(e.vector, j * dimensions));
      this.batches.push(keys);
      this.inFlightCount += keys.length;
      // The copies are handed over, not copied again.
      this.worker.postMessage({ kind: 'add', keys, matrix } satisfies AnnThreadRequest, [matrix.buffer]);
    }
  }

  remove(keys: number[]) {
    if (keys.length > 0 && !this.broken)
      this.worker.postMessage({ kind: 'remove', keys: Int32Array.from(keys) } satisfies AnnThreadRequest);
  }

  /** The `k` keys nearest to the unit vector `query`, nearest first. */
  nearest(query: Float32Array, k: number): Promise<Int32Array> {
    if (this.broken) return Promise.reject(this.broken);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.searches.set(id, { resolve, reject });
      this.worker.postMessage({ kind: 'search', id, query, k } satisfies AnnThreadRequest);
    });
  }

  async close() {
    this.stop(new Error('the vector graph was closed'));
    await this.worker.terminate();
  }

  private settle() {
    for (const resolve of this.settled.splice(0)) resolve();
  }

  private stop(err: Error) {
    this.broken ??= err;
    for (const search of this.searches.values()) search.reject(this.broken);
    this.searches.clear();
    this.settle();
  }
}
