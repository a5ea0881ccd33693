import type { EntityManager } from '@mikro-orm/postgresql';
import { embedCached, loadVectors } from './embeddings/cache.ts';
import { pointsOfDatasets, pointsPage, type PointRow } from './points-store.ts';
import type { SearchServices } from './search-services.ts';
import { INDEX_NAMES } from './vectors/vector-index.ts';

const PAGE = 1_000;

/**
 * Puts one page of points into the vector index. `embedMissing`: embed texts the cache lacks under the
 * current model (a reindex); without it only cached vectors are loaded (a start: fast, and what is
 * missing shows as drift).
 */
async function indexPage(em: EntityManager, search: SearchServices, points: PointRow[], embedMissing: boolean): Promise<number> {
  if (!search.embeddings || points.length === 0) return 0;
  let vectors: Array<Float32Array | undefined>;
  if (embedMissing) {
    vectors = await embedCached(
      em,
      search.embeddings,
      points.map((p) => p.payload.text),
    );
  } else {
    const cached = await loadVectors(
      em,
      search.embeddings.model,
      points.map((p) => p.contentHash),
    );
    vectors = points.map((p) => cached.get(p.contentHash));
  }
  let written = 0;
  for (const index of INDEX_NAMES) {
    const batch = points.flatMap((p, i) =>
      p.index === index && vectors[i] ? [{ id: p.id, vector: vectors[i]!, payload: p.payload }] : [],
    );
    if (batch.length === 0) continue;
    await search.ensureIndex(index, batch[0]!.vector.length);
    await search.vectors.upsert(index, batch);
    written += batch.length;
  }
  return written;
}

/** Fills the vector index from Postgres with the vectors the cache has: no embedding, page by page. */
export async function fillIndexFromDatabase(em: EntityManager, search: SearchServices): Promise<number> {
  let after: { index: string; id: string } | null = null;
  let loaded = 0;
  for (;;) {
    const points = await pointsPage(em, after, PAGE);
    loaded += await indexPage(em, search, points, false);
    em.clear();
    const last = points.at(-1);
    if (points.length < PAGE || !last) return loaded;
    after = { index: last.index, id: last.id };
  }
}

/**
 * The embedded index lives in this process: it is filled from Postgres at start, in the background, so
 * the service answers at once (keyword-only for what is not loaded yet).
 */
export function loadEmbeddedIndex(em: EntityManager, search: SearchServices) {
  const started = Date.now();
  fillIndexFromDatabase(em, search).then(
    (vectors) => search.log.info({ vectors, ms: Date.now() - started }, 'embedded vector index loaded from the database'),
    (err) => search.log.error({ err }, 'loading the embedded vector index failed; search is keyword-only until a reindex'),
  );
}

/** Datasets' points as the database now has them, with cached vectors, replacing what the index held. */
export async function reloadDatasetVectors(em: EntityManager, search: SearchServices, datasetIds: string[]) {
  const points = await pointsOfDatasets(em, datasetIds);
  const vectors = search.embeddings
    ? await loadVectors(
        em,
        search.embeddings.model,
        points.map((p) => p.contentHash),
      )
    : new Map<string, Float32Array>();
  for (const index of INDEX_NAMES) {
    const batch = points.flatMap((p) => {
      const vector = vectors.get(p.contentHash);
      return p.index === index && vector ? [{ id: p.id, vector, payload: p.payload }] : [];
    });
    for (const datasetId of datasetIds) await search.vectors.deleteByDataset(index, datasetId);
    if (batch.length === 0) continue;
    await search.ensureIndex(index, batch[0]!.vector.length);
    await search.vectors.upsert(index, batch);
  }
}
