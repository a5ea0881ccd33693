/**
 * Relevance of GET /packages?q= on the real catalog (1,878 records): every judged query of queries.json
 * keyword-only (`semantic=false`) and hybrid (the default), scored by nDCG@10 and recall@10. Starts the
 * service in process, seeds the catalog, asks for a metadata reindex and waits for the vector index
 * before searching, so the hybrid half sees every dataset. Figures: the mean per kind and overall for both
 * modes, hybrid − keyword per kind, and the queries hybrid ranks worse; per-query rankings go to a file.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../../src/logger.ts';
import { readCatalog, seedCatalog } from '../catalog-seed.ts';
import { checkQueries } from './check-queries.ts';
import { mean, ndcgAtK, recallAtK } from './metrics.ts';
import { loadQueries, QUERY_KINDS, type JudgedQuery } from './queries.ts';
import { startAppOn, startEngines } from '../../test/helpers/engines.ts';

const K = 10;
/** RELEVANCE_INDEX_TIMEOUT_S: how long to wait for the vector index after the reindex request. */
const INDEX_TIMEOUT_MS = Number(process.env.RELEVANCE_INDEX_TIMEOUT_S ?? 300) * 1000;
const POLL_MS = 2000;
/** Passed on to the service, so the bench measures the embeddings the caller configured. */
const PASSED_THROUGH = [
  'EMBEDDINGS_PROVIDER',
  'EMBEDDINGS_MODEL_PATH',
  'EMBEDDINGS_MODEL',
  'EMBEDDINGS_URL',
  'EMBEDDINGS_API_KEY',
  'EMBEDDINGS_BATCH_SIZE',
  'QDRANT_URL',
  'QDRANT_API_KEY',
];

type Mode = 'keyword' | 'hybrid';
const MODES: Mode[] = ['keyword', 'hybrid'];

interface Scored {
  ndcg: number;
  recall: number;
  top: string[];
  ms: number;
}

interface IndexStats {
  model?: unknown;
  database?: { activeDatasets?: number };
  indexes?: Record<string, { vectors?: number; documents?: number; drift?: number }>;
}

/** Progress goes to stderr: bench/run.ts prints each bench's result as one JSON line on stdout. */
const progress = (message: string) => console.error(`[relevance] ${message}`);
const round = (x: number) => +x.toFixed(4);
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/**
 * Each dataset's sync writes its points and vectors together, so drift is 0 all along a reindex: ready
 * means every active dataset has its packages point, and no drift.
 */
const indexReady = (stats: IndexStats) => {
  const indexes = Object.values(stats.indexes ?? {});
  const datasets = stats.database?.activeDatasets ?? 0;
  return indexes.length > 0 && indexes.every((i) => i.drift === 0) && datasets > 0 && stats.indexes?.packages?.documents === datasets;
};

/**
 * Asks for a metadata reindex and polls the stats until every index has caught up. Missing endpoints
 * (the semantic half not built yet) are reported, not fatal: the keyword figures stand on their own.
 */
async function reindexAndWait(base: string, headers: Record<string, string>) {
  const started = performance.now();
  const asked = await fetch(`${base}/admin/reindex-metadata`, { method: 'POST', headers, body: '{}' });
  const askedBody = await asked.text();
  if (asked.status === 404) {
    progress('POST /admin/reindex-metadata is 404: no vector index to build; hybrid can only be keyword-only in this run');
    return { status: 'endpoint-missing' as const, reindexStatus: 404 };
  }
  if (asked.status !== 202) {
    progress(`POST /admin/reindex-metadata answered ${asked.status}: ${askedBody.slice(0, 300)}`);
    return { status: 'reindex-refused' as const, reindexStatus: asked.status, body: askedBody.slice(0, 300) };
  }
  const workflowId = (JSON.parse(askedBody) as { workflowId?: string }).workflowId;
  progress(`reindex started (workflow ${workflowId}); waiting for the index, at most ${INDEX_TIMEOUT_MS / 1000}s`);
  let stats: IndexStats;
  for (;;) {
    const reply = await fetch(`${base}/admin/search/stats`, { headers });
    if (reply.status === 404) {
      progress('GET /admin/search/stats is 404: cannot tell when the index is ready; searching now');
      return { status: 'stats-missing' as const, workflowId };
    }
    if (!reply.ok) {
      const body = (await reply.text()).slice(0, 300);
      progress(`GET /admin/search/stats answered ${reply.status}: ${body}; searching now`);
      return { status: 'stats-refused' as const, workflowId, statsStatus: reply.status, body };
    }
    stats = (await reply.json()) as IndexStats;
    const seconds = +((performance.now() - started) / 1000).toFixed(1);
    progress(
      `${seconds}s ${Object.entries(stats.indexes ?? {})
        .map(([k, v]) => `${k} ${v.vectors}/${v.documents} drift ${v.drift}`)
        .join(', ')}`,
    );
    if (indexReady(stats)) return { status: 'ready' as const, workflowId, seconds, stats };
    if (performance.now() - started > INDEX_TIMEOUT_MS) {
      progress('index not ready in time: hybrid figures below are on a partial index');
      return { status: 'timeout' as const, workflowId, seconds, stats };
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function summarize(queries: JudgedQuery[], scores: Record<Mode, Scored[]>) {
  const groups: Record<string, number[]> = { overall: queries.map((_, i) => i) };
  for (const kind of QUERY_KINDS) groups[kind] = queries.flatMap((q, i) => (q.kind === kind ? [i] : []));
  const means = (mode: Mode, ids: number[]) => ({
    ndcg10: round(mean(ids.map((i) => scores[mode][i]!.ndcg))),
    recall10: round(mean(ids.map((i) => scores[mode][i]!.recall))),
  });
  const byGroup = Object.fromEntries(
    Object.entries(groups).map(([group, ids]) => {
      const keyword = means('keyword', ids);
      const hybrid = means('hybrid', ids);
      return [
        group,
        {
          queries: ids.length,
          keyword,
          hybrid,
          delta: { ndcg10: round(hybrid.ndcg10 - keyword.ndcg10), recall10: round(hybrid.recall10 - keyword.recall10) },
        },
      ];
    }),
  );
  const hybridWorse = queries.flatMap((q, i) => {
    const keyword = scores.keyword[i]!;
    const hybrid = scores.hybrid[i]!;
    return hybrid.ndcg < keyword.ndcg - 1e-9
      ? [{ q: q.q, kind: q.kind, keywordNdcg10: round(keyword.ndcg), hybridNdcg10: round(hybrid.ndcg) }]
      : [];
  });
  return { byGroup, hybridWorse };
}

export async function benchRelevance() {
  const queries = loadQueries();
  const problems = checkQueries(queries, readCatalog());
  if (problems.length) throw new Error(`queries.json is invalid (run bench/relevance/check-queries.ts):\n${problems.join('\n')}`);

  // The service logs on stdout, where bench/run.ts prints its one JSON line: only errors by default
  // (a missing model shows anyway, in the search's `meta` and the index status).
  const logLevel = process.env.RELEVANCE_LOG_LEVEL ?? 'error';
  const log = createLogger(logLevel);
  const engines = await startEngines('bench-relevance', log);
  try {
    const passed = Object.fromEntries(PASSED_THROUGH.flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])));
    const almanac = await startAppOn(engines, passed, log);
    const { config } = almanac.services;
    const base = `${almanac.url}/api/v1`;

    const seeded = performance.now();
    const indexed = await seedCatalog(almanac.services.orm.em.fork(), readCatalog().length, config.search.language);
    progress(`seeded ${readCatalog().length} datasets in ${((performance.now() - seeded) / 1000).toFixed(1)}s`);

    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'bench', password: 'bench-password-1' }),
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const token = (
      await (
        await fetch(`${base}/api-tokens`, {
          method: 'POST',
          headers: { cookie, 'Content-Type': 'application/json', Origin: almanac.url },
          body: JSON.stringify({ name: 'bench' }),
        })
      ).json()
    ).token;
    const index = await reindexAndWait(base, { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' });

    // Anonymous, as most searchers are; every seeded dataset is public.
    let firstHybridMeta: unknown = null;
    const search = async (q: string, mode: Mode) => {
      const url = `${base}/packages?q=${encodeURIComponent(q)}&limit=${K}${mode === 'keyword' ? '&semantic=false' : ''}`;
      const t = performance.now();
      const reply = await fetch(url);
      const body = (await reply.json()) as { results?: Array<{ name: string }>; meta?: unknown };
      const ms = performance.now() - t;
      if (!reply.ok) throw new Error(`${mode} search "${q}": ${reply.status} ${JSON.stringify(body)}`);
      if (mode === 'hybrid' && firstHybridMeta === null) {
        firstHybridMeta = body.meta ?? 'absent';
        progress(`meta of the first hybrid search: ${JSON.stringify(firstHybridMeta)}`);
      }
      return { names: (body.results ?? []).map((r) => r.name), ms };
    };

    const scores: Record<Mode, Scored[]> = { keyword: [], hybrid: [] };
    for (const query of queries) {
      for (const mode of MODES) {
        const { names, ms } = await search(query.q, mode);
        scores[mode].push({ ndcg: ndcgAtK(names, query.relevant, K), recall: recallAtK(names, query.relevant, K), top: names, ms });
      }
    }

    const detailFile = path.join(os.tmpdir(), `almanac-relevance-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    await fs.writeFile(
      detailFile,
      JSON.stringify(
        queries.map((q, i) => ({
          ...q,
          ...Object.fromEntries(
            MODES.map((mode) => [
              mode,
              {
                ndcg10: round(scores[mode][i]!.ndcg),
                recall10: round(scores[mode][i]!.recall),
                top: scores[mode][i]!.top.map((name) => `${name}${q.relevant[name] ? ` (${q.relevant[name]})` : ''}`),
              },
            ]),
          ),
        })),
        null,
        2,
      ),
    );

    const { byGroup, hybridWorse } = summarize(queries, scores);
    return {
      datasets: readCatalog().length,
      keywordDocuments: indexed,
      queries: queries.length,
      k: K,
      // Secrets stay out of the printed figures.
      embeddingsEnv: Object.fromEntries(Object.entries(passed).filter(([k]) => !k.endsWith('_KEY'))),
      index,
      firstHybridMeta,
      ...byGroup,
      hybridWorse,
      latencyP50Ms: Object.fromEntries(MODES.map((mode) => [mode, +p50(scores[mode].map((s) => s.ms)).toFixed(1)])),
      detailFile,
    };
  } finally {
    await engines.stop();
  }
}
