/**
 * A million datasets (issue 31 §3): the real catalog (1,878 records) indexed with the local model, then
 * copied inside PostgreSQL up to `total` (bench/scale-seed.ts says how and why), and Qdrant filled from
 * the points when its binary is built (scripts/qdrant.sh), measured once it has indexed them. Then an API
 * process of its own (`almanac serve`, no worker, as production runs it), once with each vector backend,
 * measured from outside. With BENCH_SCALE_DIR the load (and Qdrant's fill) stays in that folder and the
 * next run of the same size measures it again without loading (the load of 1M takes over an hour here):
 * - restart to semantic search: process start until a hybrid search answers with `semantic: "on"` and,
 *   for the embedded index, until it has loaded every vector;
 * - keyword and hybrid search p50/p95 over 20 real queries, GET /packages/{id}, facets over the catalog;
 * - the API process's RSS after the load, and Qdrant's;
 * - with BENCH_SCALE_REINDEX=<runs>, full reindexes by one worker, one after the other (bench/scale-reindex.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../src/logger.ts';
import { fillIndexFromDatabase } from '../src/search/index-loader.ts';
import { REINDEX_BATCH, syncDatasetsSearch } from '../src/search/sync.ts';
import { startAppOn, startEngines } from '../test/helpers/engines.ts';
import { freePort } from '../test/helpers/ports.ts';
import { startQdrant } from '../test/helpers/qdrant-server.ts';
import { embeddingModelPath, qdrantBinary } from '../test/helpers/tools.ts';
import { readCatalog, seedCatalog } from './catalog-seed.ts';
import { measureReindex, type ReindexFigures } from './scale-reindex.ts';
import { replicateCatalog } from './scale-seed.ts';
import { QUERIES } from './search.ts';
import { summary } from './percentiles.ts';

const BIN = fileURLToPath(new URL('../bin/almanac', import.meta.url));
const ROUNDS = 5;
const since = (t: number) => +((performance.now() - t) / 1000).toFixed(1);
const progress = (message: string) => console.error(`[scale ${new Date().toISOString().slice(11, 19)}] ${message}`);

/** Resident memory of a process, in MB (VmRSS; a Qdrant's or an API's, whole). */
async function rssMb(pid: number) {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024);
}

async function timed(url: string) {
  const started = performance.now();
  const reply = await fetch(url);
  const body = (await reply.json()) as { meta?: { semantic?: string }; count?: number };
  if (!reply.ok) throw new Error(`${url}: ${reply.status} ${JSON.stringify(body)}`);
  return { ms: performance.now() - started, body };
}

interface Api {
  url: string;
  child: ChildProcess;
  logs: string[];
  stop(): Promise<void>;
}

/** `almanac serve` without a worker on the bench's database, as an API replica runs. */
async function startApi(env: Record<string, string>): Promise<Api> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(BIN, ['serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      ...env,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: url,
      RUN_WORKER: 'false',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const keep = (chunk: Buffer) =>
    logs.push(
      ...chunk
        .toString()
        .split('\n')
        .filter((l) => l && !l.includes('"msg":"request')),
    );
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    child,
    logs,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Until the process answers a search (keywords alone). */
async function untilAnswering(api: Api) {
  for (;;) {
    if (api.child.exitCode !== null) throw new Error(`the API exited:\n${api.logs.slice(-20).join('\n')}`);
    const reply = await fetch(`${api.url}/api/v1/packages?q=hospital+quality&limit=10&semantic=false`).catch(() => null);
    if (reply?.ok) return { semanticSeconds: undefined, allVectorsSeconds: undefined };
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Seconds from the process's start until a hybrid search is semantic, and (embedded) until every vector is in. */
async function untilSemantic(api: Api, started: number, embedded: boolean) {
  let semanticSeconds: number | undefined;
  for (;;) {
    if (api.child.exitCode !== null) throw new Error(`the API exited:\n${api.logs.slice(-20).join('\n')}`);
    const reply = await fetch(`${api.url}/api/v1/packages?q=hospital+quality&limit=10`).catch(() => null);
    if (reply?.ok && ((await reply.json()) as { meta?: { semantic?: string } }).meta?.semantic === 'on') {
      semanticSeconds ??= since(started);
      // The embedded index answers while it loads, from the vectors it holds so far.
      if (!embedded || api.logs.some((l) => l.includes('embedded vector index loaded')))
        return { semanticSeconds, allVectorsSeconds: since(started) };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What a kept folder (BENCH_SCALE_DIR) holds already: the load of an earlier run of the same size. */
interface KeptLoad {
  total: number;
  catalogSeconds: number;
  copied: Awaited<ReturnType<typeof replicateCatalog>> | undefined;
  qdrantLoad: { vectors: number; seconds: number } | undefined;
}

async function readLoad(marker: string, total: number): Promise<KeptLoad | undefined> {
  const text = await fs.readFile(marker, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const load = JSON.parse(text) as KeptLoad;
  if (load.total !== total)
    throw new Error(`${marker}: the folder holds ${load.total} datasets, not ${total}; name another BENCH_SCALE_DIR`);
  return load;
}

/**
 * Until Qdrant has built the graph of every collection (status green): while it optimizes (yellow), the
 * segments not yet indexed are searched exhaustively, which measures the fill, not the search.
 */
async function untilIndexed(url: string) {
  for (;;) {
    const { result } = (await (await fetch(`${url}/collections`)).json()) as { result: { collections: Array<{ name: string }> } };
    const statuses = await Promise.all(
      result.collections.map(async ({ name }) => {
        const info = (await (await fetch(`${url}/collections/${name}`)).json()) as { result: { status: string } };
        return info.result.status;
      }),
    );
    if (statuses.every((status) => status === 'green')) return;
    await new Promise((r) => setTimeout(r, 2_000));
  }
}

async function measure(api: Api, ids: string[]) {
  const keyword: number[] = [];
  const hybrid: number[] = [];
  const hits: Record<string, number> = {};
  const keywordOf: Record<string, number[]> = {};
  const modes = new Set<string>();
  for (const q of QUERIES) {
    const base = `${api.url}/api/v1/packages?q=${encodeURIComponent(q)}&limit=10`;
    hits[q] = (await timed(`${base}&semantic=false`)).body.count ?? 0;
    await timed(base);
    for (let round = 0; round < ROUNDS; round++) {
      const k = await timed(`${base}&semantic=false`);
      keyword.push(k.ms);
      (keywordOf[q] ??= []).push(k.ms);
      const h = await timed(base);
      modes.add(String(h.body.meta?.semantic));
      hybrid.push(h.ms);
    }
  }
  const detail: number[] = [];
  for (const id of ids) detail.push((await timed(`${api.url}/api/v1/packages/${id}`)).ms);
  const facets: number[] = [];
  const facetsOfQuery: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    facets.push((await timed(`${api.url}/api/v1/packages?include_facets=true&limit=10`)).ms);
    facetsOfQuery.push((await timed(`${api.url}/api/v1/packages?q=health&include_facets=true&limit=10&semantic=false`)).ms);
  }
  return {
    keyword: summary(keyword),
    hybrid: summary(hybrid),
    semantic: [...modes],
    detail: summary(detail),
    facets: summary(facets),
    facetsOfQuery: summary(facetsOfQuery),
    hits,
    // The p95 of 20 queries is their slowest one or two: which they are, and how many datasets each matches.
    slowestKeyword: Object.entries(keywordOf)
      .map(([q, ms]) => ({ q, p50: summary(ms).p50, hits: hits[q] }))
      .sort((a, b) => b.p50 - a.p50)
      .slice(0, 5),
    rssMb: await rssMb(api.child.pid!),
  };
}

export async function benchScale(total: number) {
  const log = createLogger('warn');
  const modelPath = await embeddingModelPath(createLogger('info'));
  // BENCH_SCALE_BACKENDS=embedded (or qdrant) measures one leg, say on a folder kept by an earlier run;
  // without the Qdrant leg, Qdrant is neither started nor filled.
  const asked = process.env.BENCH_SCALE_BACKENDS?.split(',');
  const qdrantPath = !asked || asked.includes('qdrant') ? await qdrantBinary(createLogger('info')) : undefined;
  // A production PostgreSQL for a million datasets holds the datasets table (1.9 GB) in its buffers.
  const kept = process.env.BENCH_SCALE_DIR ? path.resolve(process.env.BENCH_SCALE_DIR) : undefined;
  const engines = await startEngines('bench-scale', log, {
    postgresSettings: { shared_buffers: process.env.BENCH_PG_SHARED_BUFFERS ?? '4GB' },
    keptDir: kept,
  });
  const qdrant = qdrantPath ? await startQdrant(qdrantPath, kept ? { storage: path.join(kept, 'qdrant') } : {}) : null;
  if (qdrant) engines.onStop(() => qdrant.stop());
  if (!qdrant && !asked) progress('no Qdrant binary (scripts/qdrant.sh builds it): the embedded index only');
  const env = {
    DATABASE_URL: engines.pg.url('bench'),
    TEMPORAL_ADDRESS: engines.temporal.address,
    ALMANAC_DATA_DIR: engines.dir,
    EMBEDDINGS_PROVIDER: 'local',
    EMBEDDINGS_MODEL_PATH: modelPath,
  };
  try {
    // The load, through an app in this process (no worker: nothing runs beside the copy).
    const loader = await startAppOn(engines, { ...env, RUN_WORKER: 'false', ...(qdrant ? { QDRANT_URL: qdrant.url } : {}) }, log);
    const { search, storage, config, orm } = loader.services;
    const em = orm.em.fork();
    const marker = kept ? path.join(kept, 'scale-load.json') : undefined;
    const earlier = marker ? await readLoad(marker, total) : undefined;
    let t = performance.now();
    let catalogSeconds = earlier?.catalogSeconds ?? 0;
    let copied = earlier?.copied;
    if (earlier) {
      progress(`the catalog loaded by an earlier run is reused (${marker})`);
    } else {
      const [{ n }] = await em.execute<Array<{ n: number }>>('select count(*)::int as n from datasets');
      if (n > 0) throw new Error(`${kept}: a load that did not finish is in this folder (${n} datasets); remove the folder`);
      await seedCatalog(em, readCatalog().length, config.search.language);
      const ids = (await em.execute<Array<{ id: string }>>(`select id from datasets`)).map((r) => r.id);
      for (let i = 0; i < ids.length; i += REINDEX_BATCH) {
        await syncDatasetsSearch({ em: em.fork(), storage, config, search }, ids.slice(i, i + REINDEX_BATCH));
      }
      catalogSeconds = since(t);
      progress(`the real catalog (${ids.length}) seeded and indexed with the model in ${catalogSeconds} s; copying to ${total}`);
      t = performance.now();
      copied = await replicateCatalog(em, total, config.search.language, progress);
    }
    const [counts] = await em.execute<Array<{ datasets: number; points: number }>>(
      `select (select count(*)::int from datasets) as datasets, (select count(*)::int from search_points) as points`,
    );
    if (!earlier) progress(`copied in ${since(t)} s: ${JSON.stringify({ ...counts, ...copied })}`);
    let qdrantLoad = earlier?.qdrantLoad;
    const keep = async () =>
      marker && fs.writeFile(marker, JSON.stringify({ total, catalogSeconds, copied, qdrantLoad } satisfies KeptLoad));
    await keep();
    if (qdrant) {
      if (!qdrantLoad) {
        t = performance.now();
        const vectors = await fillIndexFromDatabase(orm.em.fork(), search);
        qdrantLoad = { vectors, seconds: since(t) };
        progress(`Qdrant filled: ${JSON.stringify(qdrantLoad)}`);
      }
      t = performance.now();
      await untilIndexed(qdrant.url);
      progress(`Qdrant indexed (every collection green) ${since(t)} s after the fill`);
    }
    await keep();
    const sample = (await em.execute<Array<{ id: string }>>('select id from datasets order by random() limit 200')).map((r) => r.id);

    const results: Record<string, unknown> = {};
    // `none` (asked only): no model and no vector index, the keyword figures alone, without waiting an
    // hour for the embedded index to load 2.7 M vectors at a million datasets.
    const backends = [
      ...(qdrant ? (['qdrant', 'embedded'] as const) : (['embedded'] as const)),
      ...(asked?.includes('none') ? (['none'] as const) : []),
    ].filter((b) => !asked || asked.includes(b));
    for (const backend of backends) {
      const started = performance.now();
      const api = await startApi({
        ...env,
        ALMANAC_DATA_DIR: path.join(engines.dir, `api-${backend}`),
        ...(backend === 'qdrant' ? { QDRANT_URL: qdrant!.url } : {}),
        ...(backend === 'none' ? { EMBEDDINGS_PROVIDER: 'none' } : {}),
      });
      try {
        const ready = backend === 'none' ? await untilAnswering(api) : await untilSemantic(api, started, backend === 'embedded');
        progress(
          backend === 'none'
            ? `none: answering ${since(started)} s after start`
            : `${backend}: semantic ${ready.semanticSeconds} s after start, every vector ${ready.allVectorsSeconds} s`,
        );
        const figures = { ...ready, ...(await measure(api, sample)) };
        results[backend] = figures;
        console.log(
          `latency scale-keyword-search (${backend}): p50 ${figures.keyword.p50} ms, p95 ${figures.keyword.p95} ms (${counts?.datasets} datasets)`,
        );
        console.log(
          `latency scale-hybrid-search (${backend}): p50 ${figures.hybrid.p50} ms, p95 ${figures.hybrid.p95} ms (${counts?.points} points; semantic ${figures.semantic.join('/')})`,
        );
        console.log(
          `scale ${backend}: slowest keyword queries (p50 ms, matches): ${figures.slowestKeyword.map((x) => `${x.q} ${x.p50} (${x.hits})`).join(', ')}`,
        );
        console.log(
          `scale ${backend}: ${backend === 'none' ? 'no vector index' : `restart to semantic ${ready.semanticSeconds} s (every vector ${ready.allVectorsSeconds} s)`}; GET /packages/{id} p50 ${figures.detail.p50} ms, p95 ${figures.detail.p95} ms; facets p50 ${figures.facets.p50} ms, p95 ${figures.facets.p95} ms (with q: ${figures.facetsOfQuery.p50} / ${figures.facetsOfQuery.p95}); API RSS ${figures.rssMb} MB`,
        );
      } finally {
        await api.stop();
      }
    }
    // Each run after the first finds every text it embeds in the cache: the first of a copied catalog
    // embeds each copy's dataset text (its title is the copy's own), as a reindex after a model change would.
    const reindex: ReindexFigures[] = [];
    const reindexRuns = Number(process.env.BENCH_SCALE_REINDEX ?? 0);
    const cap = Number(process.env.BENCH_SCALE_REINDEX_MINUTES ?? 120);
    for (let run = 1; run <= reindexRuns; run++) {
      progress(`reindex-metadata ${run} of ${reindexRuns} by one worker (at most ${cap} min)`);
      const figures = await measureReindex(
        { ...env, ALMANAC_DATA_DIR: path.join(engines.dir, 'worker'), ...(qdrant ? { QDRANT_URL: qdrant.url } : {}) },
        cap,
        reindex.at(-1)?.stopped ? reindex.at(-1)!.datasets : undefined,
      );
      reindex.push(figures);
      console.log(
        `scale reindex ${run}: ${figures.datasets} datasets in ${figures.seconds} s, ${figures.perSecond} a second (${figures.stopped === 'cap' ? `stopped at the ${cap}-minute cap` : figures.stopped === 'mark' ? 'the same datasets as the run before, now cached' : 'the whole catalog'}; one worker, ${qdrant ? 'Qdrant' : 'the embedded index'}; ${figures.walMb} MB of WAL)`,
      );
    }
    const qdrantRss = qdrant ? await rssMb(qdrant.pid) : undefined;
    if (qdrantRss !== undefined)
      console.log(`scale qdrant: RSS ${qdrantRss} MB (${qdrantLoad?.vectors} vectors, filled in ${qdrantLoad?.seconds} s)`);
    return {
      datasets: counts?.datasets,
      points: counts?.points,
      catalogSeconds,
      copied,
      qdrantLoad,
      qdrantRssMb: qdrantRss,
      reindex,
      ...results,
    };
  } finally {
    await engines.stop();
  }
}
