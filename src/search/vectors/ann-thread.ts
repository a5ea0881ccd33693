/**
 * The body of an embedded index's graph thread (ann-graph.ts starts it): an HNSW graph (usearch, native
 * and SIMD) over the distinct vectors of one point store, inserting on every core while the event loop
 * that answers requests goes on.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type { Index, Matches, MetricKind } from 'usearch';

export interface AnnThreadOptions {
  dimensions: number;
}

export type AnnThreadRequest =
  /** `matrix`: the keys' unit vectors, one after the other. */
  | { kind: 'add'; keys: Int32Array; matrix: Float32Array }
  | { kind: 'remove'; keys: Int32Array }
  | { kind: 'search'; id: number; query: Float32Array; k: number };

export type AnnThreadReply =
  | { kind: 'added' }
  | { kind: 'found'; id: number; keys: Int32Array }
  /** `id`: the search that failed; without it the graph itself is in doubt. */
  | { kind: 'failed'; id?: number; message: string };

// The CommonJS build: the ES module one finds its native binary from a stack trace, which fails under tsx.
const usearch = createRequire(import.meta.url)('usearch') as typeof import('usearch');

const port = parentPort!;
const { dimensions } = workerData as AnnThreadOptions;
// Unit vectors, so the inner product is the cosine. The graph keeps its copy in half precision (half the
// memory; the store ranks the candidates by their exact cosine anyway), 16 links a node and a wide beam.
const graph: Index = new usearch.Index({
  metric: 'ip' as MetricKind,
  dimensions,
  connectivity: 16,
  expansion_add: 64,
  expansion_search: 128,
  quantization: 'f16',
  multi: false,
} as ConstructorParameters<typeof usearch.Index>[0]);

function drop(key: number) {
  const big = BigInt(key);
  if (graph.contains(big)) graph.remove(big);
}

port.on('message', (request: AnnThreadRequest) => {
  try {
    if (request.kind === 'remove') request.keys.forEach(drop);
    else if (request.kind === 'add') {
      request.keys.forEach(drop);
      if (request.keys.length > 0) graph.add(BigUint64Array.from(request.keys, BigInt), request.matrix, 0);
      port.postMessage({ kind: 'added' } satisfies AnnThreadReply);
    } else {
      const found = graph.search(request.query, request.k, 1) as Matches;
      port.postMessage({ kind: 'found', id: request.id, keys: Int32Array.from(found.keys, Number) } satisfies AnnThreadReply);
    }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const id = request.kind === 'search' ? request.id : undefined;
    port.postMessage({ kind: 'failed', ...(id === undefined ? {} : { id }), message } satisfies AnnThreadReply);
  }
});
