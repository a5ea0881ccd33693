import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import { pgArray } from '../db.ts';
import type { Dataset, Group, Resource, Tag } from '../entities/index.ts';
import { contentsKey } from '../storage/keys.ts';
import { ObjectNotFoundError, type ObjectStore } from '../storage/object-store.ts';
import { searchDocuments, type DatasetForSearch } from './documents.ts';
import { contentHash, embedCached, loadVectors } from './embeddings/cache.ts';
import { isIndexUnreachable, markIndexPending } from './index-outbox.ts';
import { writeFacetKeys } from './facet-keys.ts';
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
  return forSearch(storage, {
    id: dataset.id,
    name: dataset.name,
    title: dataset.title ?? null,
    notes: dataset.notes ?? null,
    tags: dataset.tags.getItems().map((t: Tag) => t.name),
    organization_title: (dataset.ownerOrg as Group | null)?.title ?? null,
    resources: resources.map((r) => ({
      id: r.id,
      name: r.name ?? null,
      description: r.description ?? null,
      format: r.format ?? null,
      columns: (r.extras.preview as { schema?: { columns?: ColumnRow[] } } | undefined)?.schema?.columns ?? null,
      contents: r.extras.contents,
    })),
  });
}

interface ColumnRow {
  name: string;
}

interface SearchRow {
  id: string;
  name: string;
  title: string | null;
  notes: string | null;
  tags: string[];
  organization_title: string | null;
  resources: Array<{
    id: string;
    name: string | null;
    description: string | null;
    format: string | null;
    columns: ColumnRow[] | null;
    /** What the pipeline noted of the text it extracted, when it did. */
    contents: unknown;
  }>;
}

async function forSearch(storage: ObjectStore, row: SearchRow): Promise<DatasetForSearch> {
  return {
    id: row.id,
    name: row.name,
    title: row.title,
    notes: row.notes,
    // One order whatever order the rows come back in: the text, and so its cached vector, stays the same.
    tags: [...row.tags].sort(),
    organizationTitle: row.organization_title,
    resources: await Promise.all(
      row.resources.map(async (r) => ({
        id: r.id,
        name: r.name,
        description: r.description,
        format: r.format,
        columns: r.columns?.map((c) => c.name) ?? [],
        contents: r.contents ? await readContents(storage, r.id) : null,
      })),
    ),
  };
}

/**
 * The active ones among `datasetIds` as search sees them; drafts, deleted datasets and missing rows are
 * absent. One statement with only what the documents hold: entities with every column of the record
 * cost a harvest and a reindex more than the rest of the sync.
 */
async function loadForSearch(deps: SearchSyncDeps, datasetIds: string[]): Promise<Map<string, DatasetForSearch>> {
  const rows = await deps.em.execute<SearchRow[]>(
    `select d.id, d.name, d.title, d.notes, o.title as organization_title,
            coalesce((select array_agg(t.name)
                        from dataset_tags dt join tags t on t.id = dt.tag_id where dt.dataset_id = d.id), '{}') as tags,
            coalesce((select json_agg(json_build_object(
                        'id', r.id, 'name', r.name, 'description', r.description, 'format', r.format,
                        'columns', r.extras->'preview'->'schema'->'columns', 'contents', r.extras->'contents')
                        order by r.position)
                        from resources r where r.dataset_id = d.id), '[]') as resources
       from datasets d left join groups o on o.id = d.owner_org_id
      where d.id = any(?::uuid[]) and d.state = 'active'`,
    [pgArray(datasetIds)],
  );
  // One dataset after the other, as their file texts are read from storage: a reindex batch holds hundreds of files.
  const loaded = new Map<string, DatasetForSearch>();
  for (const row of rows) loaded.set(row.id, await forSearch(deps.storage, row));
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
  // The keyword documents, facet values and points change together: no search sees one without the others.
  const { found, previous } = await deps.em.transactional(async (em) => {
    const written = await writeKeywordDocuments(em, ids, language);
    await writeFacetKeys(em, ids);
    return { found: written, previous: await replacePoints(em, ids, docs, language) };
  });
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
