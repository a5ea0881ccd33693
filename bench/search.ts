/**
 * Keyword search at catalog scale: seeds `total` datasets (the real catalog, replicated with variations),
 * then times GET /packages?q= for 20 real queries against the same query as raw SQL on the same Postgres,
 * and GET /packages/{id}. Figures: p50/p95 in ms and requests per second, first one request at a time,
 * then under load (`concurrency` clients at once, the raw SQL with as many connections).
 */
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import pg from 'pg';
import { TYPO_SIMILARITY } from '../src/db.ts';
import { keywordSearch } from '../src/search/keyword-query.ts';
import { createLogger } from '../src/logger.ts';
import { seedCatalog } from './catalog-seed.ts';
import { startAppOn, startEngines } from '../test/helpers/engines.ts';
import { pct } from './percentiles.ts';

export const QUERIES = [
  'medicare',
  'veterans health',
  'energy efficiency',
  'budget',
  'covid',
  'treasury bonds',
  'housing',
  'employment statistics',
  'food safety',
  'broadband',
  'grants',
  'hospital',
  'water quality',
  'emissions',
  'loan',
  'disaster',
  'education',
  'immigration',
  'cybersecurity',
  'solar',
];
const ROUNDS = 10;

/**
 * The listing's own search for an anonymous caller, as raw SQL: the same keyword fragments
 * (src/search/keyword-query.ts), without the HTTP, ORM and presentation around them.
 */
async function rawSearch(em: EntityManager, db: pg.Pool, q: string) {
  const { strict, fuzzy, rank } = await keywordSearch(em, 'english', q);
  const knex = em.getKnex();
  const native = (sql: string, params: unknown[]) =>
    knex
      .raw(sql, params as Knex.RawBinding[])
      .toSQL()
      .toNative();
  const base = `d.state = 'active' and d.private = false`;
  const counted = native(`select count(*)::int as n from datasets d where ${base} and (${strict.sql})`, strict.params);
  let n = (await db.query(counted.sql, counted.bindings as unknown[])).rows[0].n as number;
  const match = n === 0 && fuzzy ? fuzzy : strict;
  if (match === fuzzy) {
    const again = native(`select count(*)::int as n from datasets d where ${base} and (${fuzzy.sql})`, fuzzy.params);
    n = (await db.query(again.sql, again.bindings as unknown[])).rows[0].n;
  }
  const page = native(`select d.* from datasets d where ${base} and (${match.sql}) order by ${rank.sql} desc, d.id limit 20`, [
    ...match.params,
    ...rank.params,
  ]);
  await db.query(page.sql, page.bindings as unknown[]);
  return n;
}

const summary = (xs: number[]) => ({
  p50: +pct(xs, 50).toFixed(1),
  p95: +pct(xs, 95).toFixed(1),
  rps: +(1000 / (xs.reduce((a, b) => a + b, 0) / xs.length)).toFixed(1),
});

async function time(work: () => Promise<unknown>) {
  const t = performance.now();
  await work();
  return performance.now() - t;
}

/** Every query ROUNDS times, by `concurrency` clients pulling from one queue; rps is over wall time. */
async function underLoad(concurrency: number, work: (q: string) => Promise<unknown>) {
  const queue = QUERIES.flatMap((q) => Array.from({ length: ROUNDS }, () => q));
  const latencies: number[] = [];
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let q = queue.shift(); q !== undefined; q = queue.shift()) latencies.push(await time(() => work(q)));
    }),
  );
  const wall = performance.now() - start;
  return { ...summary(latencies), rps: +((latencies.length * 1000) / wall).toFixed(1) };
}

export async function benchSearch(total: number, concurrency: number) {
  const log = createLogger('warn');
  const engines = await startEngines('bench-search', log);
  // Keyword search alone; hybrid search has its own bench (hybrid.ts).
  const almanac = await startAppOn(engines, { EMBEDDINGS_PROVIDER: 'none' }, log);
  const { config } = almanac.services;
  const db = new pg.Pool({ connectionString: engines.pg.url('bench'), max: concurrency });
  db.on('connect', (client) => void client.query(`set pg_trgm.word_similarity_threshold = ${TYPO_SIMILARITY}`));
  const em = almanac.services.orm.em.fork();
  try {
    const seedStart = performance.now();
    const indexed = await seedCatalog(em, total, config.search.language);
    const seedSeconds = +((performance.now() - seedStart) / 1000).toFixed(1);

    const api: number[] = [];
    const raw: number[] = [];
    const hits: Record<string, number> = {};
    for (const q of QUERIES) {
      const url = `${almanac.url}/api/v1/packages?q=${encodeURIComponent(q)}`;
      hits[q] = (await (await fetch(url)).json()).count; // warm-up, and the hit count
      await rawSearch(em, db, q);
      for (let i = 0; i < ROUNDS; i++) {
        api.push(await time(async () => (await fetch(url)).json()));
        raw.push(await time(() => rawSearch(em, db, q)));
      }
    }
    const search = async (q: string) => (await fetch(`${almanac.url}/api/v1/packages?q=${encodeURIComponent(q)}`)).json();
    const loaded = {
      concurrency,
      api: await underLoad(concurrency, search),
      rawSql: await underLoad(concurrency, (q) => rawSearch(em.fork(), db, q)),
    };

    const ids = (await db.query('select id from datasets order by random() limit 200')).rows.map((r) => r.id as string);
    const detail: number[] = [];
    for (const id of ids) detail.push(await time(async () => (await fetch(`${almanac.url}/api/v1/packages/${id}`)).json()));

    const apiSummary = summary(api);
    const rawSummary = summary(raw);
    console.log(
      `ratio keyword-search-p50: ${(apiSummary.p50 / rawSummary.p50).toFixed(2)} (almanac ${apiSummary.p50} ms, baseline raw SQL ${rawSummary.p50} ms, ${total} datasets)`,
    );
    console.log(
      `ratio keyword-search-p95: ${(apiSummary.p95 / rawSummary.p95).toFixed(2)} (almanac ${apiSummary.p95} ms, baseline raw SQL ${rawSummary.p95} ms, ${total} datasets)`,
    );
    return {
      datasets: total,
      indexed,
      seedSeconds,
      search: { api: apiSummary, rawSql: rawSummary, p50Ratio: +(apiSummary.p50 / rawSummary.p50).toFixed(2) },
      searchUnderLoad: { ...loaded, rpsRatio: +(loaded.api.rps / loaded.rawSql.rps).toFixed(2) },
      detail: summary(detail),
      hits,
    };
  } finally {
    await db.end();
    await engines.stop();
  }
}
