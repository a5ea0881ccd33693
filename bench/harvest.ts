/**
 * Harvest throughput (issue 18), datasets created per second over a whole run, worker included:
 * - `harvest-dcat-us`: GSA's real data.json (../shared/data/dcat-us/gsa.json) served from loopback into an
 *   empty Almanac;
 * - `harvest-ckan`: a second Almanac harvesting the first one through its CKAN-compatible API;
 * - `harvest-dcat-us-keyword-only`: the first again into a third Almanac that has no embedding model.
 * A run ends once its datasets are found by keywords; their vectors follow in the vector backlog job,
 * and `… -vectors` lines count until the last of them is in the index (the model's pace).
 * Each app has its own database and Temporal task queue on the same engines; an untimed harvest into a
 * fourth one warms the process first.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { createLogger } from '../src/logger.ts';
import type { RunningAlmanac } from '../src/runtime/almanac.ts';
import { benchToken, startAppOn, startEngines, startOtherAppOn } from '../test/helpers/engines.ts';
import { startFileServer } from '../test/helpers/file-server.ts';
import { SHARED_DATA } from '../test/helpers/shared-data.ts';

interface RunReport {
  status: string;
  created: number;
  failed: number;
  seen: number;
  startedAt: string;
  finishedAt: string | null;
}

async function harvestOnce(almanac: RunningAlmanac, source: { name: string; type: string; url: string; organization?: string }) {
  const token = await benchToken(almanac);
  const base = `${almanac.url}/api/v1`;
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  const post = async (url: string, body?: unknown) => {
    const res = await fetch(`${base}${url}`, { method: 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  if (source.organization) await post('/organizations', { name: source.organization, title: source.organization });
  // The model loads in the background at start (both cores for a second or two): a running service has it.
  await almanac.services.search.embeddings?.healthy();
  const { id } = await post('/admin/harvest-sources', source);
  const started = performance.now();
  const startedAt = Date.now();
  await post(`/admin/harvest-sources/${id}/run`);
  for (;;) {
    const { lastRun } = (await (await fetch(`${base}/admin/harvest-sources/${id}`, { headers })).json()) as { lastRun: RunReport | null };
    if (lastRun && lastRun.status !== 'running') {
      // To the end the run records (same clock), not to the poll that saw it: a poll's interval is not the harvest's.
      const seconds = (Date.parse(lastRun.finishedAt!) - startedAt) / 1000;
      if (lastRun.status !== 'succeeded') throw new Error(`the ${source.type} harvest ${lastRun.status}`);
      const vectorSeconds = await untilEmbedded(base, headers, started);
      return {
        seconds,
        vectorSeconds,
        created: lastRun.created,
        failed: lastRun.failed,
        seen: lastRun.seen,
      };
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

const round = (seconds: number) => Math.round(seconds * 10) / 10;

/** Seconds from `started` until every point has its vector in the index (null without a model). */
async function untilEmbedded(base: string, headers: Record<string, string>, started: number): Promise<number | null> {
  for (;;) {
    const stats = (await (await fetch(`${base}/admin/search/stats`, { headers })).json()) as {
      model: { name: string | null };
      indexes: Record<string, { documents: number; embedded: number; drift: number | null }>;
    };
    if (!stats.model.name) return null;
    if (Object.values(stats.indexes).every((i) => i.embedded === i.documents && i.drift === 0))
      return round((performance.now() - started) / 1000);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function rateLines(name: string, run: { seconds: number; vectorSeconds: number | null; created: number; failed: number }) {
  console.log(
    `rate ${name}: ${(run.created / run.seconds).toFixed(1)} datasets/s (${run.created} created, ${run.failed} refused, found by keywords in ${round(run.seconds)} s)`,
  );
  if (run.vectorSeconds !== null)
    console.log(
      `rate ${name}-vectors: ${(run.created / run.vectorSeconds).toFixed(1)} datasets/s (all vectors in the index after ${run.vectorSeconds} s)`,
    );
}

export async function benchHarvest() {
  const log = createLogger('warn');
  const engines = await startEngines('bench-harvest', log);
  const gsa = await fsp.readFile(path.join(SHARED_DATA, 'dcat-us/gsa.json'));
  const files = await startFileServer({
    '/data.json': (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(gsa),
  });
  try {
    // An untimed harvest first: the first one in a process also pays for compiling the harvest code and
    // warming Temporal and PostgreSQL, which made whichever line came first look 20-30% slower.
    const warmup = await startOtherAppOn(engines, 'warmup', { EMBEDDINGS_PROVIDER: 'none' }, log);
    await harvestOnce(warmup, { name: 'gsa', type: 'dcat-us', url: `${files.url}/data.json`, organization: 'gsa' });

    const first = await startAppOn(engines, { TEMPORAL_TASK_QUEUE: 'bench-harvest-a' }, log);
    const dcatUs = await harvestOnce(first, { name: 'gsa', type: 'dcat-us', url: `${files.url}/data.json`, organization: 'gsa' });
    rateLines('harvest-dcat-us', dcatUs);

    const second = await startOtherAppOn(engines, 'second', {}, log);
    const ckan = await harvestOnce(second, { name: 'first', type: 'ckan', url: first.url, organization: 'fallback' });
    rateLines('harvest-ckan', ckan);

    // The same harvest without an embedding model (keyword search only): what the vectors cost.
    const keywordOnly = await startOtherAppOn(engines, 'keyword', { EMBEDDINGS_PROVIDER: 'none' }, log);
    const plain = await harvestOnce(keywordOnly, { name: 'gsa', type: 'dcat-us', url: `${files.url}/data.json`, organization: 'gsa' });
    console.log(
      `rate harvest-dcat-us-keyword-only: ${(plain.created / plain.seconds).toFixed(1)} datasets/s (${plain.created} created, no embedding model, in ${round(plain.seconds)} s)`,
    );
    return { dcatUs, ckan, keywordOnly: plain };
  } finally {
    await files.close();
    await engines.stop();
  }
}
