/**
 * Hybrid search at catalog scale, with the real local model and the embedded vector index:
 * - embedding throughput (texts/s, batches of EMBEDDINGS_BATCH_SIZE) on real catalog texts;
 * - a full index of the real catalog (1,878 datasets) with a cold embedding cache, and again warm;
 * - `total` datasets (the catalog replicated): each replica gets its record's points (same texts,
 *   so the same vectors) with its own payload, and the vector index is rebuilt from Postgres, timed;
 * - GET /packages?q= for the 64 relevance queries, hybrid against keyword-only (semantic=false).
 * Replicas differ from their record only by a region and year in the title, which their copied points
 * leave out: the vectors are real, the catalog is 53 near-copies of 1,878 records.
 */
import { createLogger } from '../src/logger.ts';
import { embeddingModelPath } from '../test/helpers/tools.ts';
import { packageText } from '../src/search/documents.ts';
import type { EmbeddingProvider } from '../src/search/embeddings/provider.ts';
import { fillIndexFromDatabase } from '../src/search/index-loader.ts';
import { EmbeddedVectorIndex } from '../src/search/vectors/embedded.ts';
import { INDEX_NAMES } from '../src/search/vectors/vector-index.ts';
import { REINDEX_BATCH, syncDatasetsSearch } from '../src/search/sync.ts';
import { readCatalog, seedCatalog } from './catalog-seed.ts';
import { loadQueries } from './relevance/queries.ts';
import { startAppOn, startEngines } from '../test/helpers/engines.ts';
import { summary } from './percentiles.ts';

const ROUNDS = 3;
const seconds = (since: number) => +((performance.now() - since) / 1000).toFixed(1);
const progress = (message: string) => console.error(`[hybrid] ${message}`);

export async function benchHybrid(total: number) {
  const log = createLogger('warn');
  const modelPath = await embeddingModelPath(createLogger('info'));
  const engines = await startEngines('bench-hybrid', log);
  const almanac = await startAppOn(engines, { EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_MODEL_PATH: modelPath }, log);
  const { config } = almanac.services;
  const { search, storage, orm } = almanac.services;
  const em = orm.em.fork();
  try {
    // Embedding throughput, straight from the model (no cache), on real dataset texts.
    const records = readCatalog();
    const texts = records.slice(0, 640).map((r) =>
      packageText({
        id: '',
        name: r.name,
        title: r.title,
        notes: r.notes ?? null,
        tags: r.tags ?? [],
        organizationTitle: null,
        resources: [],
      }),
    );
    await search.embeddings!.embed(texts.slice(0, 8)); // load the model
    let t = performance.now();
    await search.embeddings!.embed(texts);
    const embedSeconds = (performance.now() - t) / 1000;
    const throughput = {
      texts: texts.length,
      seconds: +embedSeconds.toFixed(1),
      textsPerSecond: +(texts.length / embedSeconds).toFixed(1),
    };
    progress(`embedding: ${JSON.stringify(throughput)}`);

    // The real catalog, indexed from scratch (cold cache), then again (every vector cached).
    t = performance.now();
    const replicaOf = new Map<string, string>();
    await seedCatalog(em, total, config.search.language, replicaOf);
    const seedSeconds = seconds(t);
    const baseIds = [...new Set(replicaOf.values())];
    if (baseIds.length === 0) baseIds.push(...(await em.execute<Array<{ id: string }>>('select id from datasets')).map((r) => r.id));
    progress(`seeded ${total} datasets in ${seedSeconds}s; indexing the ${baseIds.length} real records`);
    const deps = { em, storage, config, search };
    const indexAll = async () => {
      const started = performance.now();
      // As the reindex job does it (activities/site-data.ts): a batch of datasets per sync.
      for (let i = 0; i < baseIds.length; i += REINDEX_BATCH) {
        await syncDatasetsSearch({ ...deps, em: em.fork() }, baseIds.slice(i, i + REINDEX_BATCH));
      }
      return seconds(started);
    };
    const coldSeconds = await indexAll();
    const warmSeconds = await indexAll();
    const [points] = await em.execute<Array<{ n: string }>>('select count(*) as n from search_points');
    progress(`real catalog: cold ${coldSeconds}s, warm ${warmSeconds}s, ${points?.n} points`);

    // Replicas take their record's points (same text, hence the same cached vector) under their own id.
    t = performance.now();
    const pairs = [...replicaOf];
    for (let i = 0; i < pairs.length; i += 5_000) {
      const batch = pairs.slice(i, i + 5_000);
      await em.execute(
        `
        insert into search_points (index, id, dataset_id, resource_id, chunk, text, content_hash, updated_at)
        select sp.index, gen_random_uuid(), m.replica, null, sp.chunk, sp.text, sp.content_hash, now()
          from unnest(?::uuid[], ?::uuid[]) as m(replica, record)
          join search_points sp on sp.dataset_id = m.record`,
        [`{${batch.map(([r]) => r).join(',')}}`, `{${batch.map(([, b]) => b).join(',')}}`],
      );
    }
    const [all] = await em.execute<Array<{ n: string }>>('select count(*) as n from search_points');
    progress(`replica points written in ${seconds(t)}s: ${all?.n} points; rebuilding the vector index from Postgres`);
    t = performance.now();
    const vectors = await fillIndexFromDatabase(em.fork(), search);
    const rebuildSeconds = seconds(t);
    progress(`vector index rebuilt from Postgres: ${vectors} vectors in ${rebuildSeconds}s`);
    const index = search.vectors;
    if (!(index instanceof EmbeddedVectorIndex)) throw new Error('the hybrid bench measures the embedded vector index');
    await index.whenGraphsSettled();
    const graphSeconds = seconds(t);
    progress(`graphs settled ${graphSeconds}s after the rebuild began`);

    const queries = loadQueries().map((q) => q.q);
    const timed = async (url: string) => {
      const started = performance.now();
      const reply = await fetch(url);
      const body = (await reply.json()) as { meta?: { semantic?: string } };
      if (!reply.ok) throw new Error(`${url}: ${reply.status}`);
      return { ms: performance.now() - started, semantic: body.meta?.semantic };
    };
    const hybrid: number[] = [];
    const keyword: number[] = [];
    const modes = new Set<string>();
    for (const q of queries) {
      const base = `${almanac.url}/api/v1/packages?q=${encodeURIComponent(q)}&limit=10`;
      await timed(base);
      await timed(`${base}&semantic=false`);
      for (let round = 0; round < ROUNDS; round++) {
        const h = await timed(base);
        modes.add(String(h.semantic));
        hybrid.push(h.ms);
        keyword.push((await timed(`${base}&semantic=false`)).ms);
      }
    }
    const h = summary(hybrid);
    const k = summary(keyword);
    const step = await vectorStep(index, search.embeddings!, queries);
    console.log(
      `latency hybrid-search: p50 ${h.p50} ms, p95 ${h.p95} ms (${total} datasets, ${all?.n} points, embedded index; keyword-only p50 ${k.p50} ms, p95 ${k.p95} ms)`,
    );
    console.log(
      `ratio hybrid-vector-recall-at-10: ${step.recall.toFixed(3)} (almanac HNSW graph, baseline exact pass; ${queries.length} queries × 3 indexes, by score)`,
    );
    console.log(
      `ratio hybrid-vector-step-p95: ${(step.graph.p95 / step.exact.p95).toFixed(2)} (almanac graph p50 ${step.graph.p50} ms, p95 ${step.graph.p95} ms, baseline exact pass p50 ${step.exact.p50} ms, p95 ${step.exact.p95} ms)`,
    );
    return {
      datasets: total,
      seedSeconds,
      embedding: throughput,
      realCatalogIndex: {
        datasets: baseIds.length,
        points: Number(points?.n),
        coldCacheSeconds: coldSeconds,
        warmCacheSeconds: warmSeconds,
      },
      vectorIndexRebuild: { points: Number(all?.n), vectors, seconds: rebuildSeconds, graphsSettledSeconds: graphSeconds },
      search: {
        queries: queries.length,
        rounds: ROUNDS,
        semantic: [...modes],
        hybrid: h,
        keywordOnly: k,
        p50Ratio: +(h.p50 / k.p50).toFixed(2),
        p95Ratio: +(h.p95 / k.p95).toFixed(2),
        vectorStep: { recallAt10: +step.recall.toFixed(3), graph: step.graph, exact: step.exact },
      },
    };
  } finally {
    await engines.stop();
  }
}

/**
 * The vector step alone, graph against exact pass, for every query and index (anonymous filter): its
 * time, and recall@10 counted by score, as the replicas share their record's vectors: a graph hit counts
 * when it scores at least the exact pass's 10th (any of 53 identical copies is as right as another).
 */
async function vectorStep(index: EmbeddedVectorIndex, embeddings: EmbeddingProvider, queries: string[]) {
  let found = 0;
  let wanted = 0;
  const graphMs: number[] = [];
  const exactMs: number[] = [];
  const filter = { privateOrgIds: [] };
  for (const q of queries) {
    const [vector] = await embeddings.embed([q]);
    for (const name of INDEX_NAMES) {
      let started = performance.now();
      const exact = await index.exactSearch(name, vector!, filter, 10);
      exactMs.push(performance.now() - started);
      started = performance.now();
      const graph = await index.search(name, vector!, filter, 10);
      graphMs.push(performance.now() - started);
      const tenth = exact.at(-1)?.score ?? -Infinity;
      found += Math.min(exact.length, graph.filter((hit) => hit.score >= tenth - 1e-6).length);
      wanted += exact.length;
    }
  }
  return { recall: wanted ? found / wanted : 1, graph: summary(graphMs), exact: summary(exactMs) };
}
