import type { IndexName, IndexStats, StoredPoint, VectorFilter, VectorHit, VectorIndex, VectorPoint } from './vector-index.ts';
import { isUuid } from '../../domain/ids.ts';
import { copyPayload, PointStore } from './point-store.ts';
import { searchPoints } from './top-k-search.ts';

/**
 * From this many points on, an index keeps an HNSW graph and searches through it; below, one exact pass
 * takes a few milliseconds and needs no thread.
 */
const ANN_MIN_POINTS = 20_000;

/**
 * The index when no Qdrant is configured, in this process. Vectors live in Float32Array blocks (4 bytes
 * per dimension, no object per point, point-store.ts), so 500,000 points of 384 dimensions are 730 MiB of
 * vectors plus their payloads. A search (top-k-search.ts) on a large index goes through its HNSW graph (ann-graph.ts) and ranks the candidates,
 * with the points on their way into the graph, by their exact cosine; a small index, a search among
 * named datasets, a graph with thousands of points still on their way (a start, a reindex), or a filter
 * so narrow that the candidates hold too few matches is answered by one exact pass of dot products
 * instead: a narrow filter never loses results to the approximation.
 */
export class EmbeddedVectorIndex implements VectorIndex {
  readonly kind = 'embedded' as const;
  private readonly stores = new Map<IndexName, PointStore>();
  private readonly annMinPoints: number;

  constructor(options: { annMinPoints?: number } = {}) {
    this.annMinPoints = options.annMinPoints ?? ANN_MIN_POINTS;
  }

  async ensure(index: IndexName, dimensions: number) {
    if (!Number.isInteger(dimensions) || dimensions < 1) throw new Error(`vector dimensions must be a positive integer, got ${dimensions}`);
    const current = this.stores.get(index);
    if (current?.dimensions === dimensions) return;
    this.stores.set(index, new PointStore(dimensions, this.annMinPoints));
    await current?.close();
  }

  async upsert(index: IndexName, points: VectorPoint[]) {
    const store = this.ensured(index);
    // Checked before writing any, so a bad batch changes nothing.
    for (const point of points) {
      if (!isUuid(point.id)) throw new Error(`vector point id must be a UUID, got ${JSON.stringify(point.id)}`);
      if (point.vector.length !== store.dimensions) {
        throw new Error(`vector of point ${point.id} has ${point.vector.length} dimensions; index ${index} has ${store.dimensions}`);
      }
    }
    for (const point of points) store.put(point.id.toLowerCase(), point.vector, copyPayload(point.payload));
    store.sendToGraph();
  }

  async deleteIds(index: IndexName, ids: string[]) {
    const store = this.stores.get(index);
    for (const id of ids) store?.remove(id.toLowerCase());
    store?.sendToGraph();
  }

  async deleteByDataset(index: IndexName, datasetId: string) {
    const store = this.stores.get(index);
    for (const slot of [...(store?.slotsByDataset.get(datasetId) ?? [])]) store!.removeSlot(slot);
    store?.sendToGraph();
  }

  async deleteByResource(index: IndexName, resourceId: string) {
    const store = this.stores.get(index);
    for (const slot of [...(store?.slotsByResource.get(resourceId) ?? [])]) store!.removeSlot(slot);
    store?.sendToGraph();
  }

  async search(index: IndexName, vector: Float32Array, filter: VectorFilter, limit: number): Promise<VectorHit[]> {
    return this.searchStore(index, vector, filter, limit, false);
  }

  /** search() by one exact pass, whatever the index's size: what its graph is measured against. */
  async exactSearch(index: IndexName, vector: Float32Array, filter: VectorFilter, limit: number): Promise<VectorHit[]> {
    return this.searchStore(index, vector, filter, limit, true);
  }

  /** Resolves once every index's graph holds every point written so far (a bench times it). */
  async whenGraphsSettled(): Promise<void> {
    await Promise.all([...this.stores.values()].map((store) => store.graph?.whenSettled()));
  }

  async get(index: IndexName, id: string): Promise<StoredPoint | null> {
    const store = this.stores.get(index);
    const slot = store?.slotById.get(id.toLowerCase());
    return slot === undefined ? null : { id: store!.ids[slot]!, payload: copyPayload(store!.payloads[slot]!) };
  }

  async browse(index: IndexName, options: { offset: number; limit: number; text?: string }) {
    const store = this.stores.get(index);
    if (!store) return { total: 0, points: [] };
    let ids = store.sortedIds();
    const needle = options.text?.trim().toLowerCase();
    if (needle) ids = ids.filter((id) => store.payloads[store.slotById.get(id)!]!.text.toLowerCase().includes(needle));
    const page = ids.slice(options.offset, options.offset + options.limit);
    return { total: ids.length, points: page.map((id) => ({ id, payload: copyPayload(store.payloads[store.slotById.get(id)!]!) })) };
  }

  async stats(index: IndexName): Promise<IndexStats> {
    const store = this.stores.get(index);
    return store
      ? { points: store.slotById.size, dimensions: store.dimensions, bytes: store.approximateBytes() }
      : { points: 0, dimensions: null, bytes: null };
  }

  async healthy() {
    return true;
  }

  async close() {
    const stores = [...this.stores.values()];
    this.stores.clear();
    await Promise.all(stores.map((store) => store.close()));
  }

  private searchStore(index: IndexName, vector: Float32Array, filter: VectorFilter, limit: number, exact: boolean) {
    const store = this.stores.get(index);
    if (!store) return Promise.resolve([]);
    if (vector.length !== store.dimensions)
      throw new Error(`query vector has ${vector.length} dimensions; index ${index} has ${store.dimensions}`);
    return searchPoints(store, vector, filter, limit, exact);
  }

  private ensured(index: IndexName) {
    const store = this.stores.get(index);
    if (!store) throw new Error(`vector index ${index} does not exist yet: call ensure(index, dimensions) first`);
    return store;
  }
}
