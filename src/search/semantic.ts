import type { SearchServices } from './search-services.ts';
import { INDEX_NAMES, type IndexName, type VectorFilter, type VectorHit } from './vectors/vector-index.ts';

/**
 * The semantic retrievers: the query's vector against each index, filtered inside the index, each
 * ranked list rolled up to datasets (a dataset ranks where its best point does).
 */

/** Nearest points asked of each index. */
export const SEMANTIC_CANDIDATES = 50;
/**
 * Below this cosine similarity a neighbour is noise for a sentence model like all-MiniLM-L6-v2; a
 * dataset must come at least this close to count as a semantic match (and so in `count`).
 */
export const MIN_SIMILARITY = 0.3;

export interface SemanticMatch {
  index: IndexName;
  score: number;
  resourceId?: string;
  text: string;
}

/** Per index: dataset ids best first, with the point that placed each one. */
export type SemanticLists = Map<IndexName, Array<{ datasetId: string; match: SemanticMatch }>>;

export type SemanticStatus = 'on' | 'unavailable';

const QUERY_CACHE_SIZE = 500;
const queryVectors = new Map<string, Float32Array>();

async function embedQuery(search: SearchServices, q: string): Promise<Float32Array> {
  const key = `${search.embeddings!.model}\n${q}`;
  const cached = queryVectors.get(key);
  if (cached) return cached;
  const [vector] = await search.embeddings!.embed([q]);
  if (queryVectors.size >= QUERY_CACHE_SIZE) queryVectors.delete(queryVectors.keys().next().value!);
  queryVectors.set(key, vector!);
  return vector!;
}

/** A dataset ranks where its closest point does; points below MIN_SIMILARITY do not count. */
function rollUp(index: IndexName, hits: VectorHit[]) {
  const seen = new Set<string>();
  const list: Array<{ datasetId: string; match: SemanticMatch }> = [];
  for (const hit of hits) {
    if (hit.score < MIN_SIMILARITY || seen.has(hit.payload.datasetId)) continue;
    seen.add(hit.payload.datasetId);
    const { resourceId, text } = hit.payload;
    list.push({ datasetId: hit.payload.datasetId, match: { index, score: hit.score, ...(resourceId ? { resourceId } : {}), text } });
  }
  return list;
}

/**
 * The three semantic lists for `q` under `filter`, or `unavailable` when there is no model, the model
 * fails, or the vector index is down: search then answers from keywords alone and says so.
 */
export async function semanticLists(
  search: SearchServices,
  q: string,
  filter: VectorFilter,
): Promise<{ status: SemanticStatus; lists: SemanticLists }> {
  const lists: SemanticLists = new Map();
  if (!search.embeddings) return { status: 'unavailable', lists };
  try {
    const vector = await embedQuery(search, q);
    const results = await Promise.all(INDEX_NAMES.map((index) => search.vectors.search(index, vector, filter, SEMANTIC_CANDIDATES)));
    INDEX_NAMES.forEach((index, i) => lists.set(index, rollUp(index, results[i]!)));
    return { status: 'on', lists };
  } catch (err) {
    search.log.warn({ err }, 'semantic search unavailable; answering from keywords');
    return { status: 'unavailable', lists: new Map() };
  }
}

/** Reciprocal rank fusion's usual constant: it damps the weight of the very first ranks. */
export const RRF_K = 60;

/**
 * Reciprocal rank fusion of ranked dataset lists (ranks from 1): the sum of 1 / (RRF_K + rank) over
 * the lists a dataset appears in. Best first; ties broken by id so pages are stable.
 */
export function fuse(lists: Array<Map<string, number>>): Array<{ id: string; score: number }> {
  const scores = new Map<string, number>();
  for (const ranks of lists) {
    for (const [id, rank] of ranks) scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + rank));
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
