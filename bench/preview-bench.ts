import fsp from 'node:fs/promises';
import path from 'node:path';
import { createLogger } from '../src/logger.ts';
import { servedPreviewKey, type PreviewRecord } from '../src/domain/pipeline/preview-record.ts';
import type { RunningAlmanac } from '../src/runtime/almanac.ts';
import { buildCsv } from './pipeline.ts';
import { benchToken, startAppOn, startEngines, type Engines } from '../test/helpers/engines.ts';

export interface BenchPreview {
  engines: Engines;
  almanac: RunningAlmanac;
  /** The API's root, `…/api/v1`. */
  base: string;
  /** A sysadmin's token, with a JSON content type. */
  headers: { Authorization: string; 'Content-Type': string };
  /** The queryable resource. */
  id: string;
  /** The very Parquet preview the service queries, copied for the raw DuckDB baselines. */
  parquet: string;
  rows: number;
}

/**
 * The benches over the 50 MB preview (query, datastore, exports): an Almanac on fresh engines with the
 * bench CSV uploaded through the API and processed by the pipeline; the engines stop after `run`.
 */
export async function withBenchPreview<T>(name: string, run: (bench: BenchPreview) => Promise<T>): Promise<T> {
  const log = createLogger('warn');
  const engines = await startEngines(name, log);
  const almanac = await startAppOn(engines, {}, log);
  const base = `${almanac.url}/api/v1`;
  try {
    const headers = { Authorization: `Bearer ${await benchToken(almanac)}`, 'Content-Type': 'application/json' };
    const post = async (url: string, body: unknown) =>
      (await fetch(`${base}${url}`, { method: 'POST', headers, body: JSON.stringify(body) })).json();
    await post('/organizations', { name: 'bench-org' });
    const created = await post('/packages', {
      name,
      ownerOrg: 'bench-org',
      licenseId: 'cc-by-4.0',
      resources: [{ urlType: 'upload', name: 'bench.csv' }],
    });
    const id: string = created.resources[0].id;
    const csv = path.join(engines.dir, 'bench.csv');
    await buildCsv(csv, 50 * 1024 * 1024);
    const uploaded = await fetch(`${base}/resources/${id}/upload`, {
      method: 'POST',
      headers: { Authorization: headers.Authorization, 'Content-Type': 'text/csv' },
      body: await fsp.readFile(csv),
    });
    if (!uploaded.ok) throw new Error(`upload: ${uploaded.status}`);
    for (let status = ''; status !== 'succeeded';) {
      await new Promise((r) => setTimeout(r, 200));
      status = (await (await fetch(`${base}/resources/${id}/pipeline-status`)).json()).status;
      if (status === 'failed') throw new Error('pipeline failed');
    }
    const record = (await (await fetch(`${base}/resources/${id}`, { headers })).json()) as { extras: { preview: PreviewRecord } };
    const parquet = path.join(engines.dir, 'raw.parquet');
    await fsp.writeFile(
      parquet,
      Buffer.concat(await (await almanac.services.storage.read(servedPreviewKey(id, record.extras.preview))).toArray()),
    );
    return await run({ engines, almanac, base, headers, id, parquet, rows: record.extras.preview.schema!.rowCount });
  } finally {
    await engines.stop();
  }
}
