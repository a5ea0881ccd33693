import type { VectorFilter, VectorHit, VectorPayload } from './vector-index.ts';
import { copyPayload, unit, type PointStore } from './point-store.ts';

/** Graph neighbours fetched per result asked: the filter then drops what the caller may not see. */
const ANN_OVERFETCH = 4;
const ANN_MIN_CANDIDATES = 200;
/**
 * Points sent to the graph and not yet in it are looked at one by one beside its answer; beyond this
 * many (a start or a reindex filling the index) the exact pass is cheaper.
 */
const ANN_MAX_IN_FLIGHT = 10_000;

/**
 * The limit best points of a store for a query, by cosine. Through the store's graph when it has one, the
 * points on their way into it looked at beside its candidates; by one exact pass of dot products when
 * `exact` is asked, for a search among named datasets, while thousands of points are still on their way
 * (a start, a reindex), or when the filter is so narrow that the candidates hold too few matches: a narrow
 * filter never loses results to the approximation.
 */
export async function searchPoints(
  store: PointStore,
  query: Float32Array,
  filter: VectorFilter,
  limit: number,
  exact: boolean,
): Promise<VectorHit[]> {
  // The heap is sized by the limit: never larger than the index, whatever a caller asks for.
  const k = Math.min(Math.floor(limit), store.slotById.size);
  if (!(k >= 1)) return [];
  const q = unit(query);
  const accepts = compileFilter(filter);
  let top = new TopK(k);
  // The arrays themselves, which only grow: still the store's after the graph's answer comes back.
  const { blocks, blockShift, blockMask, dimensions, payloads, ids, nodes } = store;
  const consider = (slot: number) => {
    const payload = payloads[slot];
    if (payload !== null && payload !== undefined && accepts(payload))
      top.offer(dot(blocks[slot >> blockShift], (slot & blockMask) * dimensions, q, dimensions), slot);
  };
  const found = () => top.drain().map(({ slot, score }) => ({ id: ids[slot]!, score, payload: copyPayload(payloads[slot]!) }));
  // A dataset filter names few datasets: visit only their points instead of all of them.
  if (filter.datasetIds) {
    for (const datasetId of new Set(filter.datasetIds)) for (const slot of store.slotsByDataset.get(datasetId) ?? []) consider(slot);
    return found();
  }
  const graph = store.graph;
  if (!exact && graph && !graph.broken && graph.inFlight <= ANN_MAX_IN_FLIGHT) {
    const wanted = Math.min(nodes.size, Math.max(k * ANN_OVERFETCH, ANN_MIN_CANDIDATES));
    const candidates = await graph.nearest(q, wanted).catch(() => null);
    if (candidates) {
      // Scored against the store as it is now: a point changed or deleted meanwhile is seen as it is,
      // and one the graph has not taken in yet is looked at all the same. A node's points share a vector.
      const considerNode = (node: number) => {
        let score: number | undefined;
        for (const slot of nodes.slotsOf(node)) {
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
