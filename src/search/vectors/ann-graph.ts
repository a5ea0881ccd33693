import type { Worker } from 'node:worker_threads';
import { startModuleThread } from '../../thread-start.ts';
import type { AnnThreadOptions, AnnThreadReply, AnnThreadRequest } from './ann-thread.ts';

/**
 * An embedded index's HNSW graph, kept in a thread of its own (ann-thread.ts) over the store's shared
 * vector blocks. Additions are sent as the store changes and answered once inserted: while any is
 * still on its way the graph may lack a point, so `ready` is false and the store answers by its exact
 * pass instead. A thread that fails is given up (`broken`), and the exact pass answers from then on.
 */
export class AnnGraph {
  broken?: Error;
  private readonly worker: Worker;
  private pendingAdds = 0;
  private readonly searches = new Map<number, { resolve: (slots: Int32Array) => void; reject: (err: Error) => void }>();
  private nextId = 0;
  private settled: Array<() => void> = [];

  constructor(options: AnnThreadOptions) {
    this.worker = startModuleThread(import.meta.url, 'ann-thread', options);
    // The thread only serves this process's requests: it must not keep the process alive.
    this.worker.unref();
    this.worker.on('message', (reply: AnnThreadReply) => {
      if (reply.kind === 'added') {
        if (--this.pendingAdds === 0) this.settle();
      } else if (reply.kind === 'found') {
        this.searches.get(reply.id)?.resolve(reply.slots);
        this.searches.delete(reply.id);
      } else if (reply.id !== undefined) {
        this.searches.get(reply.id)?.reject(new Error(reply.message));
        this.searches.delete(reply.id);
      } else {
        this.stop(new Error(`the vector graph failed: ${reply.message}`));
      }
    });
    this.worker.on('error', (err) => this.stop(new Error(`the vector graph thread failed: ${err.message}`)));
    this.worker.on('exit', (code) => this.stop(new Error(`the vector graph thread exited (code ${code})`)));
  }

  /** Every point sent is in the graph: its answers miss none. */
  get ready() {
    return this.pendingAdds === 0 && !this.broken;
  }

  /** Resolves once every addition sent so far is in the graph (or the graph is given up). */
  whenSettled(): Promise<void> {
    return this.pendingAdds === 0 || this.broken ? Promise.resolve() : new Promise((resolve) => this.settled.push(resolve));
  }

  addBlock(buffer: SharedArrayBuffer) {
    this.send({ kind: 'block', buffer });
  }

  /** (Re)inserts the slots with the vectors their blocks hold now. */
  add(slots: number[]) {
    if (slots.length === 0) return;
    this.pendingAdds++;
    this.send({ kind: 'add', slots: Int32Array.from(slots) });
  }

  remove(slots: number[]) {
    if (slots.length > 0) this.send({ kind: 'remove', slots: Int32Array.from(slots) });
  }

  /** The `k` slots nearest to the unit vector `query`, nearest first. */
  nearest(query: Float32Array, k: number): Promise<Int32Array> {
    if (this.broken) return Promise.reject(this.broken);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.searches.set(id, { resolve, reject });
      this.send({ kind: 'search', id, query, k });
    });
  }

  async close() {
    this.stop(new Error('the vector graph was closed'));
    await this.worker.terminate();
  }

  private send(request: AnnThreadRequest) {
    if (!this.broken) this.worker.postMessage(request);
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
