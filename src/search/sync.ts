import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import { Dataset, type Group, Resource, type Tag } from '../entities/index.ts';
import { contentsKey } from '../storage/keys.ts';
import { ObjectNotFoundError, type ObjectStore } from '../storage/object-store.ts';
import { searchDocuments, type DatasetForSearch } from './documents.ts';
import { contentHash, embedCached, loadVectors } from './embeddings/cache.ts';
import { isIndexUnreachable, markIndexPending } from './index-outbox.ts';
import { writeKeywordDocuments } from './keyword-document.ts';
import { pointsOfDatasets, replacePoints, type PointRow } from './points-store.ts';
import type { SearchServices } from './search-services.ts';
import { INDEX_NAMES, type IndexName } from './vectors/vector-index.ts';

export interface SearchSyncDeps {
  em: EntityManager;
  storage: ObjectStore;
  config: Config;
  search: SearchServices;
}

/** The text extracted from a file is read back at most this far for its chunks. */
const CONTENTS_READ_BYTES = 64 * 1024;

async function readContents(storage: ObjectStore, resourceId: string): Promise<string | null> {
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of await storage.read(contentsKey(resourceId), { start: 0, end: CONTENTS_READ_BYTES - 1 }))
      chunks.push(chunk as Buffer);
    return new TextDecoder('utf-8').decode(Buffer.concat(chunks), { stream: true });
  } catch (err) {
    if (err instanceof ObjectNotFoundError) return null;
    throw err;
  }
}

/** A dataset and its resources (in position order) as search sees them. */
export async function datasetForSearch(storage: ObjectStore, dataset: Dataset, resources: Resource[]): Promise<DatasetForSearch> {
  return {
    id: dataset.id,
    name: dataset.name,
    title: dataset.title ?? null,
    notes: dataset.notes ?? null,
    tags: dataset.tags.getItems().map((t: Tag) => t.name),
    organizationTitle: (dataset.ownerOrg as Group | null)?.title ?? null,
    resources: await Promise.all(
      resources.map(async (r) => {
        const schema = (r.extras.preview as { schema?: { columns?: Array<{ name: string }> } } | undefined)?.schema;
        return {
          id: r.id,
          name: r.name ?? null,
          description: r.description ?? null,
          format: r.format ?? null,
          columns: schema?.columns?.map((c) => c.name) ?? [],
          contents: r.extras.contents ? await readContents(storage, r.id) : null,
        };
      }),
    ),
  };
}

/** The active ones among `datasetIds` as search sees them; drafts, deleted datasets and missing rows are absent. */
async function loadForSearch(deps: SearchSyncDeps, datasetIds: string[]): Promise<Map<string, DatasetForSearch>> {
  const datasets = await deps.em.find(Dataset, { id: { $in: datasetIds }, state: 'active' }, { populate: ['ownerOrg', 'tags'] });
  const resources = datasets.length
    ? await deps.em.find(Resource, { dataset: { $in: datasets.map((d) => d.id) } }, { orderBy: { position: 'asc' } })
    : [];
  const byDataset = new Map<string, Resource[]>();
  for (const r of resources) byDataset.set((r.dataset as Dataset).id, [...(byDataset.get((r.dataset as Dataset).id) ?? []), r]);
  const loaded = new Map<string, DatasetForSearch>();
  for (const dataset of datasets) loaded.set(dataset.id, await datasetForSearch(deps.storage, dataset, byDataset.get(dataset.id) ?? []));
  return loaded;
}

export interface SearchSyncResult {
  found: boolean;
  vectors: boolean;
}

export interface SearchSyncOptions {
  /**
   * `now` (the default): texts the cache lacks are embedded before the call returns, so the change is
   * found by meaning at once. `later`: only cached vectors are pushed, and the points of new texts wait
   * for the vector backlog (vector-backlog.ts) — a harvest's thousands of records are found by keywords
   * as fast as they are written, instead of at the model's pace.
   */
  embed?: 'now' | 'later';
  /**
   * Datasets as search sees them, when the caller holds them already (a dataset it has just created and
   * committed): they are not read back. Only for active datasets whose rows say exactly this.
   */
  known?: Map<string, DatasetForSearch>;
}

/**
 * Brings a dataset's search state in line with its row: the keyword document, its points (packages,
 * resources, text chunks) and their vectors. Idempotent; a draft or deleted dataset leaves no trace.
 * Vectors are best effort: without a model or with the vector index down the dataset is still found
 * by keywords, and the drift shows in /admin/search/stats until a reindex.
 */
export async function syncDatasetSearch(deps: SearchSyncDeps, datasetId: string): Promise<SearchSyncResult> {
  return (await syncDatasetsSearch(deps, [datasetId])).get(datasetId)!;
}

/** Datasets a reindex syncs together (syncDatasetsSearch), as a harvest page does. */
export const REINDEX_BATCH = 50;

/**
 * syncDatasetSearch for many datasets at once (a harvest's page): a few statements for all of them, their
 * texts embedded in one call and their vectors pushed in one upsert per index.
 */
export async function syncDatasetsSearch(
  deps: SearchSyncDeps,
  datasetIds: string[],
  { embed = 'now', known }: SearchSyncOptions = {},
): Promise<Map<string, SearchSyncResult>> {
  const ids = [...new Set(datasetIds)];
  const { language } = deps.config.search;
  const datasets = known && ids.every((id) => known.has(id)) ? known : await loadForSearch(deps, ids);
  const docs = new Map([...datasets].map(([id, dataset]) => [id, searchDocuments(dataset)]));
  const texts = [...docs.values()].flat().map((d) => d.text);
  // Vectors are in the cache before the points are written: a process that reloads a dataset when its
  // points change (index-follower.ts) finds both.
  // No model configured (EMBEDDINGS_PROVIDER=none) is a choice, not a failure: keyword search only, quietly.
  const { embeddings } = deps.search;
  let vectors: Map<string, Float32Array> | null = embeddings ? new Map() : null;
  try {
    if (embeddings && texts.length > 0 && embed === 'now') {
      const embedded = await embedCached(deps.em, embeddings, texts);
      texts.forEach((text, i) => vectors!.set(contentHash(text), embedded[i]!));
    }
  } catch (err) {
    vectors = null;
    deps.search.log.warn({ err, datasetIds: ids }, 'datasets could not be embedded; search finds them by keywords until a reindex');
  }
  // The keyword documents and the points change together: no search sees one without the other.
  const { found, previous } = await deps.em.transactional(async (em) => ({
    found: await writeKeywordDocuments(em, ids, language),
    previous: await replacePoints(em, ids, docs, language),
  }));
  // An embedded index is each API process's own, and its follower (index-follower.ts) reloads these datasets
  // from the points just written, cached vectors included: reading and pushing them here too is the same
  // work twice. The old vectors still go at once, as below.
  if (embed === 'later' && deps.search.vectors.kind === 'embedded') {
    await dropPrevious(deps, previous, new Set()).catch((err: unknown) =>
      deps.search.log.warn({ err, datasetIds: ids }, 'old vectors of datasets not dropped; the index follower drops them'),
    );
    return new Map(ids.map((id) => [id, { found: found.has(id), vectors: false }]));
  }
  // Read after the points are written: a text the backlog embeds from now on finds these points, and one it
  // embedded before is read here.
  if (embeddings && texts.length > 0 && embed === 'later') {
    vectors = await loadVectors(deps.em, embeddings.model, texts.map(contentHash)).catch((err: unknown) => {
      deps.search.log.warn({ err, datasetIds: ids }, 'cached vectors of datasets could not be read; a reindex brings them');
      return null;
    });
  }
  let pushed = vectors !== null && (embed === 'now' || texts.every((text) => vectors!.has(contentHash(text))));
  if (vectors) {
    try {
      // No vector for any text (a new dataset waiting for the backlog): no point to read, only old ones to drop.
      const points = datasets.size && vectors.size ? await pointsOfDatasets(deps.em, [...datasets.keys()]) : [];
      await pushVectors(deps, points, previous, vectors);
    } catch (err) {
      pushed = false;
      if (!isIndexUnreachable(err)) {
        deps.search.log.warn({ err, datasetIds: ids }, 'vectors of datasets not updated; search finds them by keywords until a reindex');
      } else {
        // The index is down: the vector backlog pushes these datasets again once it answers.
        deps.search.log.warn({ err, datasetIds: ids }, 'the vector index is out of reach; these datasets wait in its outbox');
        await markIndexPending(deps.em, ids).catch((noted: unknown) =>
          deps.search.log.warn(
            { err: noted, datasetIds: ids },
            'datasets could not be noted for the vector index; a reindex brings their vectors',
          ),
        );
      }
    }
  }
  return new Map(ids.map((id) => [id, { found: found.has(id), vectors: pushed }]));
}

/**
 * Upserts the points that have a vector (by text hash) and drops every other point the datasets had:
 * one no longer there, or one whose text changed and waits for its vector (its old vector and payload,
 * a former title or a since-withdrawn public flag, must not answer searches meanwhile).
 */
async function pushVectors(
  deps: SearchSyncDeps,
  points: PointRow[],
  previous: Map<IndexName, Set<string>>,
  byHash: Map<string, Float32Array>,
) {
  const { vectors } = deps.search;
  const kept = new Set<string>();
  for (const index of INDEX_NAMES) {
    const batch = points.flatMap((p) =>
      p.index === index && byHash.has(p.contentHash) ? [{ id: p.id, vector: byHash.get(p.contentHash)!, payload: p.payload }] : [],
    );
    batch.forEach((p) => kept.add(`${index}:${p.id}`));
    if (batch.length === 0) continue;
    await deps.search.ensureIndex(index, batch[0]!.vector.length);
    await vectors.upsert(index, batch);
  }
  await dropPrevious(deps, previous, kept);
}

/** Drops the points the datasets had that are not `kept` (as `index:id`). */
async function dropPrevious(deps: SearchSyncDeps, previous: Map<IndexName, Set<string>>, kept: Set<string>) {
  for (const [index, ids] of previous) {
    const dropped = [...ids].filter((id) => !kept.has(`${index}:${id}`));
    if (dropped.length > 0) await deps.search.vectors.deleteIds(index, dropped);
  }
}

/** Before the rows of datasets are deleted for good (purges): their vectors go first, like their files. */
export async function removeDatasetVectors(search: SearchServices, datasetIds: string[]) {
  for (const id of datasetIds) {
    for (const index of INDEX_NAMES) await search.vectors.deleteByDataset(index, id);
  }
}
