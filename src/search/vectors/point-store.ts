import type { VectorPayload } from './vector-index.ts';
import { AnnGraph } from './ann-graph.ts';
import { DistinctVectors, sameVector } from './distinct-vectors.ts';

/** Vectors are stored in blocks of about this size (smaller when the dimensions are few: at most 4096 points a block). */
const BLOCK_BYTES = 2 * 2 ** 20;
/** After a graph's thread failed, searches stay exact this long before a new graph is built. */
const GRAPH_RETRY_MS = 60_000;

/**
 * One index's points: slot i holds a vector in blocks[i >> blockShift], ids[i] and payloads[i]; deleted
 * slots are reused. Fixed-size blocks rather than one array that doubles: growing to 500,000 points then
 * never copies the vectors, never holds the old and new array at once, and wastes at most one block.
 * The blocks are readable so that the top-k search (top-k-search.ts) scores slots in its own tight loop.
 */
export class PointStore {
  readonly blocks: Float32Array[] = [];
  readonly blockShift: number;
  readonly blockMask: number;
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
  readonly nodes = new DistinctVectors((slot) => this.vectorOf(slot));

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

/** 1/|v|, or 1 for the zero vector (which then scores 0 against everything). */
function inverseNorm(vector: Float32Array) {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  return sum === 0 ? 1 : 1 / Math.sqrt(sum);
}

export function unit(vector: Float32Array) {
  const scale = inverseNorm(vector);
  return vector.map((x) => x * scale);
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
export function copyPayload(p: VectorPayload): VectorPayload {
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
