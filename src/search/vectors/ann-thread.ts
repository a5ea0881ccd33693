/**
 * The body of an embedded index's graph thread (ann-graph.ts starts it): an HNSW graph (usearch, native
 * and SIMD) over the slots of one point store. It reads the vectors from the store's shared blocks, so
 * nothing is copied between the threads but slot numbers, and inserts on every core while the event
 * loop that answers requests goes on.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type { Index, Matches, MetricKind } from 'usearch';

export interface AnnThreadOptions {
  dimensions: number;
  /** A slot's block is `slot >> blockShift`, its row in that block `slot & (2^blockShift - 1)`. */
  blockShift: number;
}

export type AnnThreadRequest =
  | { kind: 'block'; buffer: SharedArrayBuffer }
  | { kind: 'add'; slots: Int32Array }
  | { kind: 'remove'; slots: Int32Array }
  | { kind: 'search'; id: number; query: Float32Array; k: number };

export type AnnThreadReply =
  | { kind: 'added' }
  | { kind: 'found'; id: number; slots: Int32Array }
  /** `id`: the search that failed; without it the graph itself is in doubt. */
  | { kind: 'failed'; id?: number; message: string };

// The CommonJS build: the ES module one finds its native binary from a stack trace, which fails under tsx.
const usearch = createRequire(import.meta.url)('usearch') as typeof import('usearch');

const port = parentPort!;
const { dimensions, blockShift } = workerData as AnnThreadOptions;
const rowMask = (1 << blockShift) - 1;
const blocks: Float32Array[] = [];
// Vectors are unit length in the store, so the inner product is the cosine. The graph keeps its own copy
// in half precision (half the memory; the store ranks the candidates by their exact cosine anyway),
// 16 links a node and a wide beam: on the real catalog's near-duplicate texts recall@10 against the
// exact pass is above 0.95 (npm run bench -- hybrid).
const graph: Index = new usearch.Index({
  metric: 'ip' as MetricKind,
  dimensions,
  connectivity: 16,
  expansion_add: 64,
  expansion_search: 128,
  quantization: 'f16',
  multi: false,
} as ConstructorParameters<typeof usearch.Index>[0]);

function drop(key: bigint) {
  if (graph.contains(key)) graph.remove(key);
}

function add(slots: Int32Array) {
  const keys = new BigUint64Array(slots.length);
  const matrix = new Float32Array(slots.length * dimensions);
  slots.forEach((slot, i) => {
    keys[i] = BigInt(slot);
    drop(keys[i]!);
    const offset = (slot & rowMask) * dimensions;
    matrix.set(blocks[slot >> blockShift]!.subarray(offset, offset + dimensions), i * dimensions);
  });
  if (slots.length > 0) graph.add(keys, matrix, 0);
}

port.on('message', (request: AnnThreadRequest) => {
  try {
    if (request.kind === 'block') blocks.push(new Float32Array(request.buffer));
    else if (request.kind === 'remove') for (const slot of request.slots) drop(BigInt(slot));
    else if (request.kind === 'add') {
      add(request.slots);
      port.postMessage({ kind: 'added' } satisfies AnnThreadReply);
    } else {
      const found = graph.search(request.query, request.k, 1) as Matches;
      port.postMessage({ kind: 'found', id: request.id, slots: Int32Array.from(found.keys, Number) } satisfies AnnThreadReply);
    }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const id = request.kind === 'search' ? request.id : undefined;
    port.postMessage({ kind: 'failed', ...(id === undefined ? {} : { id }), message } satisfies AnnThreadReply);
  }
});
