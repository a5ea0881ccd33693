import type {
  IndexName,
  IndexStats,
  StoredPoint,
  VectorFilter,
  VectorHit,
  VectorIndex,
  VectorPayload,
  VectorPoint,
} from './vector-index.ts';
import { isUuid } from '../../domain/ids.ts';
import { AnnGraph } from './ann-graph.ts';
import { DistinctVectors, sameVector } from './distinct-vectors.ts';

/** Vectors are stored in blocks of about this size (smaller when the dimensions are few: at most 4096 points a block). */
const BLOCK_BYTES = 2 * 2 ** 20;
/**
 * From this many points on, an index keeps an HNSW graph and searches through it; below, one exact pass
 * takes a few milliseconds and needs no thread.
 */
export const ANN_MIN_POINTS = 20_000;
/** Graph neighbours fetched per result asked: the filter then drops what the caller may not see. */
const ANN_OVERFETCH = 4;
const ANN_MIN_CANDIDATES = 200;
/**
 * Points sent to the graph and not yet in it are looked at one by one beside its answer; beyond this
 * many (a start or a reindex filling the index) the exact pass is cheaper.
 */
const ANN_MAX_IN_FLIGHT = 10_000;
/** After a graph's thread failed, searches stay exact this long before a new graph is built. */
const GRAPH_RETRY_MS = 60_000;

/**
 * The index when no Qdrant is configured, in this process. Vectors live in Float32Array blocks (4 bytes
 * per dimension, no object per point), so 500,000 points of 384 dimensions are 730 MiB of vectors plus
 * their payloads. A large index searches through its HNSW graph (ann-graph.ts) and ranks the candidates,
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
    return store.search(vector, filter, limit, exact);
  }

  private ensured(index: IndexName) {
    const store = this.stores.get(index);
    if (!store) throw new Error(`vector index ${index} does not exist yet: call ensure(index, dimensions) first`);
    return store;
  }
}

/**
 * One index's points: slot i holds a vector in blocks[i >> blockShift], ids[i] and payloads[i]; deleted
 * slots are reused. Fixed-size blocks rather than one array that doubles: growing to 500,000 points then
 * never copies the vectors, never holds the old and new array at once, and wastes at most one block.
 */
class PointStore {
  private readonly blocks: Float32Array[] = [];
  private readonly blockShift: number;
  private readonly blockMask: number;
  /** null marks a free slot; kept packed (no holes) so V8 keeps fast elements. */
  readonly ids: (string | null)[] = [];
  readonly payloads: (VectorPayload | null)[] = [];
  readonly slotById = new Map<string, number>();
  readonly slotsByDataset = new Map<string, Set<number>>();
  readonly slotsByResource = new Map<string, Set<number>>();
  private readonly freeSlots: number[] = [];
  private payloadBytes = 0;
  private sortedIdCache: string[] | null = null;
  /** Started once the store holds annMinPoints points. */
  graph: AnnGraph | null = null;
  private graphRetryAt = 0;
  /** The graph's nodes. */
  private readonly nodes = new DistinctVectors((slot) => this.vectorOf(slot));

  constructor(
    readonly dimensions: number,
    private readonly annMinPoints: number,
  ) {
    const slotsPerBlock = Math.min(4096, Math.max(64, BLOCK_BYTES / (4 * dimensions)));
    this.blockShift = Math.floor(Math.log2(slotsPerBlock));
    this.blockMask = (1 << this.blockShift) - 1;
  }

  /** Tells the graph what changed (starting it once the store is large enough). */
  sendToGraph() {
    if (this.graph?.broken) {
      // Its thread is gone; a new graph is built from every node, though not at once after a failure.
      void this.graph.close();
      this.graph = null;
      this.graphRetryAt = Date.now() + GRAPH_RETRY_MS;
    }
    const starting = !this.graph && this.slotById.size >= this.annMinPoints && Date.now() >= this.graphRetryAt;
    if (starting) this.graph = new AnnGraph({ dimensions: this.dimensions });
    const { dropped, added } = this.nodes.takeChanges({ all: starting });
    this.graph?.remove(dropped);
    this.graph?.add(added.map((node) => ({ key: node, vector: this.vectorOf(this.nodes.anySlot(node)) })));
  }

  async close() {
    await this.graph?.close();
  }

  put(id: string, vector: Float32Array, payload: VectorPayload) {
    let slot = this.slotById.get(id);
    if (slot === undefined) {
      slot = this.freeSlots.pop() ?? this.ids.length;
      if (slot === this.ids.length) {
        this.ids.push(null);
        this.payloads.push(null);
        if (slot >> this.blockShift === this.blocks.length) this.addBlock();
      }
      this.ids[slot] = id;
      this.slotById.set(id, slot);
      this.sortedIdCache = null;
    } else {
      this.unlinkPayload(slot);
    }
    // A new payload on the same vector keeps its node: the graph has nothing to redo.
    if (!this.nodes.has(slot) || !sameVector(this.vectorOf(slot), unit(vector))) {
      this.nodes.unlink(slot);
      this.writeUnitVector(slot, vector);
      this.nodes.link(slot);
    }
    this.payloads[slot] = payload;
    this.payloadBytes += estimatePayloadBytes(payload);
    addTo(this.slotsByDataset, payload.datasetId, slot);
    if (payload.resourceId !== undefined) addTo(this.slotsByResource, payload.resourceId, slot);
  }

  remove(id: string) {
    const slot = this.slotById.get(id);
    if (slot !== undefined) this.removeSlot(slot);
  }

  removeSlot(slot: number) {
    this.nodes.unlink(slot);
    this.unlinkPayload(slot);
    this.slotById.delete(this.ids[slot]!);
    this.ids[slot] = null;
    this.payloads[slot] = null;
    this.freeSlots.push(slot);
    this.sortedIdCache = null;
  }

  async search(query: Float32Array, filter: VectorFilter, limit: number, exact: boolean): Promise<VectorHit[]> {
    // The heap is sized by the limit: never larger than the index, whatever a caller asks for.
    const k = Math.min(Math.floor(limit), this.slotById.size);
    if (!(k >= 1)) return [];
    const q = unit(query);
    const accepts = compileFilter(filter);
    let top = new TopK(k);
    // The arrays themselves, which only grow: still the store's after the graph's answer comes back.
    const { blocks, blockShift, blockMask, dimensions, payloads } = this;
    const consider = (slot: number) => {
      const payload = payloads[slot];
      if (payload !== null && payload !== undefined && accepts(payload))
        top.offer(dot(blocks[slot >> blockShift], (slot & blockMask) * dimensions, q, dimensions), slot);
    };
    const found = () => top.drain().map(({ slot, score }) => ({ id: this.ids[slot]!, score, payload: copyPayload(payloads[slot]!) }));
    // A dataset filter names few datasets: visit only their points instead of all of them.
    if (filter.datasetIds) {
      for (const datasetId of new Set(filter.datasetIds)) for (const slot of this.slotsByDataset.get(datasetId) ?? []) consider(slot);
      return found();
    }
    const graph = this.graph;
    if (!exact && graph && !graph.broken && graph.inFlight <= ANN_MAX_IN_FLIGHT) {
      const wanted = Math.min(this.nodes.size, Math.max(k * ANN_OVERFETCH, ANN_MIN_CANDIDATES));
      const candidates = await graph.nearest(q, wanted).catch(() => null);
      if (candidates) {
        // Scored against the store as it is now: a point changed or deleted meanwhile is seen as it is,
        // and one the graph has not taken in yet is looked at all the same. A node's points share a vector.
        const considerNode = (node: number) => {
          let score: number | undefined;
          for (const slot of this.nodes.slotsOf(node)) {
            const payload = payloads[slot];
            if (!payload || !accepts(payload)) continue;
            score ??= dot(blocks[slot >> blockShift], (slot & blockMask) * dimensions, q, dimensions);
            top.offer(score, slot);
          }
        };
        const seen = new Set<number>();
        for (const node of [...candidates, ...graph.inFlightKeys()]) {
          // A node may also be in flight, once or more (re-sent after a reload): scored once.
          if (seen.has(node)) continue;
          seen.add(node);
          considerNode(node);
        }
        if (top.size === k) return found();
      }
      top = new TopK(k);
    }
    for (let slot = 0; slot < payloads.length; slot++) consider(slot);
    return found();
  }

  sortedIds() {
    // Browsing pages through the same order many times; sorting 500,000 ids once per change is enough.
    this.sortedIdCache ??= [...this.slotById.keys()].sort();
    return this.sortedIdCache;
  }

  approximateBytes() {
    // Per point: its id string, the id map entry, two array cells and the dataset/resource set entries.
    const vectorBytes = this.blocks.length * (this.blockMask + 1) * this.dimensions * 4;
    return vectorBytes + this.payloadBytes + this.slotById.size * 160;
  }

  private addBlock() {
    this.blocks.push(new Float32Array((this.blockMask + 1) * this.dimensions));
  }

  private vectorOf(slot: number): Float32Array {
    const offset = (slot & this.blockMask) * this.dimensions;
    return this.blocks[slot >> this.blockShift].subarray(offset, offset + this.dimensions);
  }

  private unlinkPayload(slot: number) {
    const old = this.payloads[slot]!;
    this.payloadBytes -= estimatePayloadBytes(old);
    removeFrom(this.slotsByDataset, old.datasetId, slot);
    if (old.resourceId !== undefined) removeFrom(this.slotsByResource, old.resourceId, slot);
  }

  private writeUnitVector(slot: number, vector: Float32Array) {
    // Stored unit length, as Qdrant does for Cosine, so a dot product is the cosine even for a vector that is slightly off.
    const block = this.blocks[slot >> this.blockShift];
    const offset = (slot & this.blockMask) * this.dimensions;
    const scale = inverseNorm(vector);
    for (let i = 0; i < vector.length; i++) block[offset + i] = vector[i] * scale;
  }
}

type Accepts = (payload: VectorPayload) => boolean;

/** The filter as one predicate; the value lists become Sets once per search, not once per point. */
function compileFilter(filter: VectorFilter): Accepts {
  const privateOrgs = filter.privateOrgIds === 'all' ? null : new Set(filter.privateOrgIds);
  const datasets = setOf(filter.datasetIds);
  const orgs = setOf(filter.orgIds);
  const excludedOrgs = setOf(filter.excludeOrgIds);
  const groups = setOf(filter.groups);
  const tags = setOf(filter.tags);
  const formats = setOf(filter.formats);
  const licenses = setOf(filter.licenses);
  return (p) =>
    (privateOrgs === null || !p.private || (p.orgId !== null && privateOrgs.has(p.orgId))) &&
    (datasets === null || datasets.has(p.datasetId)) &&
    (orgs === null || (p.orgId !== null && orgs.has(p.orgId))) &&
    (excludedOrgs === null || p.orgId === null || !excludedOrgs.has(p.orgId)) &&
    (groups === null || hasAny(p.groups, groups)) &&
    (tags === null || hasAny(p.tags, tags)) &&
    (formats === null || hasAny(p.formats, formats)) &&
    (licenses === null || (p.license !== null && licenses.has(p.license)));
}

const setOf = (values: string[] | undefined) => (values === undefined ? null : new Set(values));

function hasAny(values: string[], wanted: Set<string>) {
  for (const value of values) if (wanted.has(value)) return true;
  return false;
}

function dot(vectors: Float32Array, offset: number, q: Float32Array, n: number) {
  // Four accumulators let the CPU overlap the multiply-adds instead of waiting on one running sum.
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    s0 += vectors[offset + i] * q[i];
    s1 += vectors[offset + i + 1] * q[i + 1];
    s2 += vectors[offset + i + 2] * q[i + 2];
    s3 += vectors[offset + i + 3] * q[i + 3];
  }
  for (; i < n; i++) s0 += vectors[offset + i] * q[i];
  return s0 + s1 + s2 + s3;
}

/** 1/|v|, or 1 for the zero vector (which then scores 0 against everything). */
function inverseNorm(vector: Float32Array) {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  return sum === 0 ? 1 : 1 / Math.sqrt(sum);
}

function unit(vector: Float32Array) {
  const scale = inverseNorm(vector);
  return vector.map((x) => x * scale);
}

/** The k best scores seen so far, as a min-heap: each candidate costs O(log k), never a sort of all scores. */
class TopK {
  private readonly scores: Float64Array;
  private readonly slots: Int32Array;
  size = 0;

  constructor(private readonly k: number) {
    this.scores = new Float64Array(k);
    this.slots = new Int32Array(k);
  }

  offer(score: number, slot: number) {
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (this.scores[parent] <= score) break;
        this.scores[i] = this.scores[parent];
        this.slots[i] = this.slots[parent];
        i = parent;
      }
      this.scores[i] = score;
      this.slots[i] = slot;
    } else if (score > this.scores[0]) {
      this.siftDownFromRoot(score, slot);
    }
  }

  /** Best first. */
  drain() {
    const out: { slot: number; score: number }[] = [];
    for (let i = 0; i < this.size; i++) out.push({ slot: this.slots[i], score: this.scores[i] });
    return out.sort((a, b) => b.score - a.score || a.slot - b.slot);
  }

  private siftDownFromRoot(score: number, slot: number) {
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.size) break;
      const right = left + 1;
      const child = right < this.size && this.scores[right] < this.scores[left] ? right : left;
      if (this.scores[child] >= score) break;
      this.scores[i] = this.scores[child];
      this.slots[i] = this.slots[child];
      i = child;
    }
    this.scores[i] = score;
    this.slots[i] = slot;
  }
}

function addTo(map: Map<string, Set<number>>, key: string, slot: number) {
  let slots = map.get(key);
  if (!slots) map.set(key, (slots = new Set()));
  slots.add(slot);
}

function removeFrom(map: Map<string, Set<number>>, key: string, slot: number) {
  const slots = map.get(key);
  if (slots?.delete(slot) && slots.size === 0) map.delete(key);
}

/** The index keeps its own copy: a caller changing its object later must not change what is indexed. */
function copyPayload(p: VectorPayload): VectorPayload {
  const copy: VectorPayload = {
    datasetId: p.datasetId,
    orgId: p.orgId,
    private: p.private,
    groups: [...p.groups],
    tags: [...p.tags],
    formats: [...p.formats],
    license: p.license,
    text: p.text,
  };
  if (p.resourceId !== undefined) copy.resourceId = p.resourceId;
  if (p.chunk !== undefined) copy.chunk = p.chunk;
  return copy;
}

function estimatePayloadBytes(p: VectorPayload) {
  // V8 strings are 1 or 2 bytes a character plus a header; objects and arrays a few pointers each.
  const strings = [p.datasetId, p.orgId ?? '', p.license ?? '', p.resourceId ?? '', ...p.groups, ...p.tags, ...p.formats];
  return 2 * p.text.length + strings.reduce((sum, s) => sum + s.length + 24, 0) + 200;
}
