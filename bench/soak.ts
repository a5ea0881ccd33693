/**
 * Load and soak (issue 16): BENCH_CLIENTS (50) clients for BENCH_SECONDS (300) against the embedded
 * service on loopback, mixing searches, dataset reads, queries, uploads and MCP calls
 * (test/helpers/load-mix.ts). Prints requests, unplanned answers (must be 0), p50/p95 per route, the
 * throttles, and the server's memory and open handles each ten seconds; the suite runs a 15 s version.
 */
import { createLogger } from '../src/logger.ts';
import { ApiClient } from '../test/helpers/client.ts';
import { runLoad } from '../test/helpers/load-mix.ts';
import { benchToken, startAppOn, startEngines } from '../test/helpers/engines.ts';

export async function benchSoak(clients: number, seconds: number) {
  const log = createLogger('warn');
  const engines = await startEngines('soak', log);
  try {
    const almanac = await startAppOn(engines, { EMBEDDINGS_PROVIDER: 'none', FETCH_ALLOW_PRIVATE_NETWORKS: 'true' }, log);
    try {
      const api = new ApiClient(almanac.url);
      const adminToken = await benchToken(almanac);
      (globalThis as { gc?: () => void }).gc?.();
      const heapAtStartMb = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
      // The client runs in the same process as the server: memory and handles are the two together.
      const sample = () => ({ rssBytes: process.memoryUsage().rss, handles: process.getActiveResourcesInfo().length });
      const report = await runLoad({ api, adminToken, sample }, { clients, seconds, log: (line) => process.stderr.write(`${line}\n`) });
      const curve = report.curve.filter((p, i) => i % 10 === 0 || i === report.curve.length - 1);
      // RSS follows V8's own pace of collecting: the heap after a full collection says whether anything was kept.
      const heapBeforeMb = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
      (globalThis as { gc?: () => void }).gc?.();
      const settled = { heapBeforeGcMb: heapBeforeMb, heapAfterGcMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20), heapAtStartMb };
      return { ...report, unplanned: report.unplanned.slice(0, 20), unplannedCount: report.unplanned.length, curve, settled };
    } finally {
      await almanac.stop();
    }
  } finally {
    await engines.stop();
  }
}
