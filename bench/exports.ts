/**
 * Exports end to end (issue 29 §3): the whole preview of a 50 MB CSV (463k rows, built as bench/query.ts
 * builds it) through GET /resources/{id}/download?format=… for each format, against DuckDB writing the
 * same Parquet file's rows to a file with its own `COPY … TO` (2 threads, as the sandbox has), in the same
 * run. XLSX has no DuckDB writer here (the excel extension cannot be installed): its baseline is COPY to
 * CSV. Figure: the median of 3 runs each, as rows per second, almanac ÷ DuckDB; and the server's RSS
 * (this process: the API runs in it, the exports' DuckDB in query processes) before, at its peak while
 * an export runs, and after them, to show that streaming keeps it flat.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { createLogger } from '../src/logger.ts';
import { servedPreviewKey, type PreviewRecord } from '../src/domain/pipeline/preview-record.ts';
import { EXPORT_FORMATS } from '../src/query/export-formats.ts';
import { buildCsv } from './pipeline.ts';
import { benchToken, startAppOn, startEngines } from '../test/helpers/engines.ts';

const RUNS = 3;
const BASELINE: Record<string, string> = {
  csv: 'FORMAT csv, HEADER true',
  json: 'FORMAT json',
  parquet: 'FORMAT parquet',
  xlsx: 'FORMAT csv, HEADER true',
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

export async function benchExports() {
  const log = createLogger('warn');
  const engines = await startEngines('bench-exports', log);
  const almanac = await startAppOn(engines, {}, log);
  const base = `${almanac.url}/api/v1`;
  try {
    const token = await benchToken(almanac);
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const post = async (url: string, body: unknown) =>
      (await fetch(`${base}${url}`, { method: 'POST', headers, body: JSON.stringify(body) })).json();
    await post('/organizations', { name: 'bench-org' });
    const created = await post('/packages', {
      name: 'bench-exports',
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
    const rows = record.extras.preview.schema!.rowCount;
    const parquet = path.join(engines.dir, 'raw.parquet');
    await fsp.writeFile(
      parquet,
      Buffer.concat(await (await almanac.services.storage.read(servedPreviewKey(id, record.extras.preview))).toArray()),
    );
    const duck = await DuckDBInstance.create(':memory:', { threads: '2' });
    const conn = await duck.connect();

    /** One whole export, read to its end and thrown away as it comes: what a client saving it does. */
    const exportOnce = async (format: string) => {
      const t = performance.now();
      const reply = await fetch(`${base}/resources/${id}/download?format=${format}`, { headers: { Authorization: headers.Authorization } });
      if (!reply.ok || !reply.body) throw new Error(`export ${format}: ${reply.status} ${await reply.text()}`);
      let bytes = 0;
      for await (const chunk of reply.body) bytes += chunk.length;
      return { seconds: (performance.now() - t) / 1000, bytes };
    };
    const baselineOnce = async (format: string) => {
      const file = path.join(engines.dir, `baseline.${format}`);
      const t = performance.now();
      await conn.run(`COPY (SELECT * FROM read_parquet('${parquet}')) TO '${file}' (${BASELINE[format]})`);
      const seconds = (performance.now() - t) / 1000;
      const { size } = await fsp.stat(file);
      await fsp.rm(file);
      return { seconds, bytes: size };
    };

    // Warm-up: the first export also copies the preview into the query cache.
    await exportOnce('csv');
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    // Only while an export runs: the baseline's DuckDB runs in this process too, and its memory is not the server's.
    let sampling = false;
    const sampler = setInterval(() => sampling && (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
    const results: Record<string, { almanacS: number; baselineS: number; ratio: number; bytes: number; baselineBytes: number }> = {};
    for (const format of EXPORT_FORMATS) {
      const almanacRuns = [];
      const baselineRuns = [];
      for (let i = 0; i < RUNS; i++) {
        sampling = true;
        almanacRuns.push(await exportOnce(format));
        sampling = false;
        baselineRuns.push(await baselineOnce(format));
      }
      const almanacS = median(almanacRuns.map((r) => r.seconds));
      const baselineS = median(baselineRuns.map((r) => r.seconds));
      results[format] = {
        almanacS: +almanacS.toFixed(2),
        baselineS: +baselineS.toFixed(2),
        // rows/s over rows/s: the same rows on both sides.
        ratio: +(baselineS / almanacS).toFixed(2),
        bytes: almanacRuns[0]!.bytes,
        baselineBytes: baselineRuns[0]!.bytes,
      };
      console.log(
        `ratio export-${format}: ${results[format].ratio} (almanac ${results[format].almanacS} s, baseline ${results[format].baselineS} s DuckDB COPY to ${format === 'xlsx' ? 'CSV' : format}; ${rows} rows, ${mb(results[format].bytes)} MB vs ${mb(results[format].baselineBytes)} MB)`,
      );
    }
    clearInterval(sampler);
    global.gc?.();
    await new Promise((r) => setTimeout(r, 500));
    const rssAfter = process.memoryUsage().rss;
    console.log(`rss export-server: before ${mb(rssBefore)} MB, peak during ${mb(rssPeak)} MB, after ${mb(rssAfter)} MB`);
    conn.closeSync();
    return { rows, runs: RUNS, formats: results, rssMb: { before: mb(rssBefore), peak: mb(rssPeak), after: mb(rssAfter) } };
  } finally {
    await engines.stop();
  }
}
