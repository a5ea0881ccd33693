/**
 * Harvest throughput (issue 18), datasets created per second over a whole run, worker included:
 * - `harvest-dcat-us`: GSA's real data.json (../shared/data/dcat-us/gsa.json) served from loopback into an
 *   empty Almanac;
 * - `harvest-ckan`: a second Almanac harvesting the first one through its CKAN-compatible API;
 * - `harvest-dcat-us-keyword-only`: the first again into a third Almanac that has no embedding model, to
 *   show what the vectors cost (on a small machine, most of the time).
 * Each app has its own database and Temporal task queue on the same engines.
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
  const { id } = await post('/admin/harvest-sources', source);
  const started = performance.now();
  await post(`/admin/harvest-sources/${id}/run`);
  for (;;) {
    const { lastRun } = (await (await fetch(`${base}/admin/harvest-sources/${id}`, { headers })).json()) as { lastRun: RunReport | null };
    if (lastRun && lastRun.status !== 'running') {
      const seconds = (performance.now() - started) / 1000;
      if (lastRun.status !== 'succeeded') throw new Error(`the ${source.type} harvest ${lastRun.status}`);
      return { seconds: Math.round(seconds * 10) / 10, created: lastRun.created, failed: lastRun.failed, seen: lastRun.seen };
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function benchHarvest() {
  const log = createLogger('warn');
  const engines = await startEngines('bench-harvest', log);
  const gsa = await fsp.readFile(path.join(SHARED_DATA, 'dcat-us/gsa.json'));
  const files = await startFileServer({
    '/data.json': (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(gsa),
  });
  try {
    const first = await startAppOn(engines, { TEMPORAL_TASK_QUEUE: 'bench-harvest-a' }, log);
    const dcatUs = await harvestOnce(first, { name: 'gsa', type: 'dcat-us', url: `${files.url}/data.json`, organization: 'gsa' });
    console.log(
      `rate harvest-dcat-us: ${(dcatUs.created / dcatUs.seconds).toFixed(1)} datasets/s (${dcatUs.created} created, ${dcatUs.failed} refused, in ${dcatUs.seconds} s)`,
    );

    const second = await startOtherAppOn(engines, 'second', {}, log);
    const ckan = await harvestOnce(second, { name: 'first', type: 'ckan', url: first.url, organization: 'fallback' });
    console.log(
      `rate harvest-ckan: ${(ckan.created / ckan.seconds).toFixed(1)} datasets/s (${ckan.created} created, ${ckan.failed} refused, in ${ckan.seconds} s)`,
    );

    // The same harvest without an embedding model (keyword search only): what the vectors cost.
    const keywordOnly = await startOtherAppOn(engines, 'keyword', { EMBEDDINGS_PROVIDER: 'none' }, log);
    const plain = await harvestOnce(keywordOnly, { name: 'gsa', type: 'dcat-us', url: `${files.url}/data.json`, organization: 'gsa' });
    console.log(
      `rate harvest-dcat-us-keyword-only: ${(plain.created / plain.seconds).toFixed(1)} datasets/s (${plain.created} created, no embedding model, in ${plain.seconds} s)`,
    );
    return { dcatUs, ckan, keywordOnly: plain };
  } finally {
    await files.close();
    await engines.stop();
  }
}
