/** `npm run bench [-- startup|search|coverage-search|pipeline|query|version-query|relevance|hybrid|soak|harvest|embeddings|reads|exports|datastore|bulk-create|ckanapi-load|scale]`: runs the named benchmarks (all by default), one JSON line each. */
import { benchBulkCreate } from './bulk-create.ts';
import { benchCkanapiLoad } from './ckanapi-load.ts';
import { benchCoverageSearch } from './coverage-search.ts';
import { benchDatastore } from './datastore.ts';
import { benchEmbeddings } from './embeddings.ts';
import { benchExports } from './exports.ts';
import { benchHarvest } from './harvest.ts';
import { benchHybrid } from './hybrid.ts';
import { benchPipeline } from './pipeline.ts';
import { benchQuery } from './query.ts';
import { benchReads } from './reads.ts';
import { benchRelevance } from './relevance/run.ts';
import { benchScale } from './scale.ts';
import { benchSearch } from './search.ts';
import { benchSoak } from './soak.ts';
import { benchStartup } from './startup.ts';
import { benchVersionQuery } from './version-query.ts';

const benches: Record<string, () => Promise<object>> = {
  startup: () => benchStartup(Number(process.env.BENCH_RUNS ?? 3)),
  pipeline: () => benchPipeline(),
  query: () => benchQuery(),
  'version-query': () => benchVersionQuery(),
  exports: () => benchExports(),
  datastore: () => benchDatastore(),
  relevance: () => benchRelevance(),
  hybrid: () => benchHybrid(Number(process.env.BENCH_DATASETS ?? 100_000)),
  harvest: () => benchHarvest(),
  embeddings: () => benchEmbeddings(),
  reads: () => benchReads(),
  'bulk-create': () => benchBulkCreate(Number(process.env.BENCH_RECORDS ?? 400)),
  'ckanapi-load': () => benchCkanapiLoad(Number(process.env.BENCH_RECORDS ?? 400), Number(process.env.BENCH_CKANAPI_PROCESSES ?? 4)),
  soak: () => benchSoak(Number(process.env.BENCH_CLIENTS ?? 50), Number(process.env.BENCH_SECONDS ?? 300)),
  'coverage-search': () => benchCoverageSearch(Number(process.env.BENCH_DATASETS ?? 100_000)),
  scale: () => benchScale(Number(process.env.BENCH_DATASETS ?? 1_000_000)),
  search: () => benchSearch(Number(process.env.BENCH_DATASETS ?? 100_000), Number(process.env.BENCH_CONCURRENCY ?? 8)),
};
// A million datasets take most of an hour to load: run only when named.
const ON_REQUEST = new Set(['scale']);
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(benches).filter((name) => !ON_REQUEST.has(name));
for (const name of chosen) {
  if (!benches[name]) throw new Error(`unknown benchmark "${name}"; known: ${Object.keys(benches).join(', ')}`);
  console.log(JSON.stringify({ bench: name, ...(await benches[name]()) }));
}
process.exit(0);
