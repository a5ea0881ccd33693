/**
 * The points of an embedded index grouped by identical vector: the nodes of its HNSW graph. A text
 * embedded once and indexed many times (a common resource description, a replicated record) gives many
 * points with one vector; as graph nodes of their own they would link only to each other and cut
 * themselves off from the rest, so they share one node, and a search scores it once.
 */
export class DistinctVectors {
  private readonly nodeOfSlot: number[] = [];
  private readonly slotsOfNode: Array<Set<number> | null> = [];
  private readonly keyOfNode: number[] = [];
  private readonly nodeByKey = new Map<number, number>();
  private readonly freeNodes: number[] = [];
  /** Nodes made or dropped since takeChanges() last ran. */
  private readonly added = new Set<number>();
  private readonly dropped = new Set<number>();

  /** `vectorOf` reads a slot's stored vector. */
  constructor(private readonly vectorOf: (slot: number) => Float32Array) {}

  get size() {
    return this.nodeByKey.size;
  }

  has(slot: number) {
    return (this.nodeOfSlot[slot] ?? -1) >= 0;
  }

  slotsOf(node: number): Iterable<number> {
    return this.slotsOfNode[node] ?? [];
  }

  /** A slot of the node, whose vector is the node's. */
  anySlot(node: number): number {
    return this.slotsOfNode[node]!.values().next().value!;
  }

  /** The slot joins the node of its stored vector, made when no other point has that vector. */
  link(slot: number) {
    const vector = this.vectorOf(slot);
    let key = vectorKey(vector);
    for (let node = this.nodeByKey.get(key); node !== undefined; node = this.nodeByKey.get(++key)) {
      // Same key, other vector (a hash collision): the next key.
      if (sameVector(this.vectorOf(this.anySlot(node)), vector)) {
        this.slotsOfNode[node]!.add(slot);
        this.nodeOfSlot[slot] = node;
        return;
      }
    }
    const node = this.freeNodes.pop() ?? this.slotsOfNode.length;
    this.slotsOfNode[node] = new Set([slot]);
    this.keyOfNode[node] = key;
    this.nodeByKey.set(key, node);
    this.nodeOfSlot[slot] = node;
    this.added.add(node);
  }

  /** The slot leaves its node; the last one out drops the node. */
  unlink(slot: number) {
    const node = this.nodeOfSlot[slot] ?? -1;
    if (node < 0) return;
    this.nodeOfSlot[slot] = -1;
    const slots = this.slotsOfNode[node]!;
    slots.delete(slot);
    if (slots.size > 0) return;
    this.slotsOfNode[node] = null;
    this.nodeByKey.delete(this.keyOfNode[node]!);
    this.freeNodes.push(node);
    this.added.delete(node);
    this.dropped.add(node);
  }

  /** What to tell the graph: nodes dropped (first), then nodes made, since the last call; `all` makes every node new. */
  takeChanges({ all = false } = {}): { dropped: number[]; added: number[] } {
    const changes = all ? { dropped: [], added: [...this.nodeByKey.values()] } : { dropped: [...this.dropped], added: [...this.added] };
    this.added.clear();
    this.dropped.clear();
    return changes;
  }
}

/** A 52-bit hash of a vector's bits: two 26-bit halves of differently mixed FNV-style hashes. */
function vectorKey(vector: Float32Array): number {
  const bits = new Uint32Array(vector.buffer, vector.byteOffset, vector.length);
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < bits.length; i++) {
    a = Math.imul(a ^ bits[i]!, 0x01000193);
    b = Math.imul(b ^ bits[i]!, 0x5bd1e995) ^ (b >>> 13);
  }
  return (a >>> 6) * 2 ** 26 + (b >>> 6);
}

export function sameVector(a: Float32Array, b: Float32Array) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
