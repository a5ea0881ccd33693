/**
 * Exports end to end (issue 29 §3): the whole preview of a 50 MB CSV (463k rows, built as bench/query.ts
 * builds it) through GET /resources/{id}/download?format=… for each format, against DuckDB writing the
 * same Parquet file's rows to a file with its own `COPY … TO` (2 threads, as the sandbox has), in a process
 * of its own (exports-baseline.ts), each export and its baseline in turn, after a pause (SETTLE_MS). XLSX's
 * baseline is DuckDB's excel extension (`FORMAT xlsx`, installed from PyPI at the bindings' DuckDB version);
 * beside it, XLSX against COPY to CSV, the stricter comparison earlier runs used while that extension was
 * thought out of reach. Figure: the median of 3 runs each, as rows per second, almanac ÷ DuckDB; and the server's RSS
 * (this process: the API runs in it, the exports' DuckDB in query processes) before, at its peak while
 * an export runs, and after them, to show that streaming keeps it flat.
 */
import { execFile, fork } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import path from 'node:path';
import { EXPORT_FORMATS } from '../src/query/export-formats.ts';
import { createLogger } from '../src/logger.ts';
import { duckdbExcelExtension } from '../test/helpers/tools.ts';
import { withBenchPreview } from './preview-bench.ts';

const RUNS = 3;
const run = promisify(execFile);
const BASELINE: Record<string, string> = {
  csv: 'FORMAT csv, HEADER true',
  json: 'FORMAT json',
  parquet: 'FORMAT parquet',
  xlsx: 'FORMAT xlsx, HEADER true',
  'xlsx-vs-csv': 'FORMAT csv, HEADER true',
};

/**
 * Before each timed run, export or baseline: the query process an export leaves is replaced, and the
 * replacement's start (Node, tsx and DuckDB: 1-3 s of CPU under the bench's tsx, less from dist/) must not
 * be timed as part of whichever run comes next.
 */
const SETTLE_MS = 3000;
const settle = () => new Promise((r) => setTimeout(r, SETTLE_MS));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

export async function benchExports() {
  return withBenchPreview('bench-exports', async ({ engines, base, headers, id, parquet, rows }) => {
    const baseline = fork(new URL('./exports-baseline.ts', import.meta.url), {
      execArgv: process.execArgv,
      env: { ...process.env, DUCKDB_EXCEL_EXTENSION: await duckdbExcelExtension(createLogger('info')) },
    });
    await once(baseline, 'message');

    /**
     * One whole export, read to its end and thrown away as it comes, by curl: the client is another
     * process, so this process's memory is the server's alone.
     */
    const exportOnce = async (format: string) => {
      const t = performance.now();
      const { stdout } = await run('curl', [
        '-sSf',
        '-o',
        '/dev/null',
        '-w',
        '%{size_download}',
        '-H',
        `Authorization: ${headers.Authorization}`,
        `${base}/resources/${id}/download?format=${format}`,
      ]);
      return { seconds: (performance.now() - t) / 1000, bytes: Number(stdout) };
    };
    const baselineOnce = async (format: string) => {
      const file = path.join(engines.dir, `baseline.${format === 'xlsx' ? 'xlsx' : format.split('-')[0]}`);
      const answer = once(baseline, 'message');
      baseline.send({ sql: `COPY (SELECT * FROM read_parquet('${parquet}')) TO '${file}' (${BASELINE[format]})`, file });
      const [{ seconds, bytes }] = (await answer) as [{ seconds: number; bytes: number }];
      return { seconds, bytes };
    };

    // Warm-up: the first export also copies the preview into the query cache.
    await exportOnce('csv');
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
    // Run by run, each export and then its baseline, so that both meet the same load on a shared machine.
    const almanacRuns: Record<string, Array<{ seconds: number; bytes: number }>> = {};
    const baselineRuns: Record<string, Array<{ seconds: number; bytes: number }>> = {};
    const peaks: Record<string, number> = {};
    for (const format of EXPORT_FORMATS) {
      almanacRuns[format] = [];
      baselineRuns[format] = [];
      for (let i = 0; i < RUNS; i++) {
        await settle();
        almanacRuns[format].push(await exportOnce(format));
        await settle();
        baselineRuns[format].push(await baselineOnce(format));
        if (format === 'xlsx') {
          await settle();
          (baselineRuns['xlsx-vs-csv'] ??= []).push(await baselineOnce('xlsx-vs-csv'));
        }
      }
      peaks[format] = rssPeak;
    }
    clearInterval(sampler);
    baseline.disconnect();
    global.gc?.();
    await new Promise((r) => setTimeout(r, 500));
    const rssAfter = process.memoryUsage().rss;
    const results: Record<
      string,
      { almanacS: number; baselineS: number; ratio: number; bytes: number; baselineBytes: number; peakRssMb: number }
    > = {};
    almanacRuns['xlsx-vs-csv'] = almanacRuns.xlsx!;
    peaks['xlsx-vs-csv'] = peaks.xlsx!;
    for (const format of [...EXPORT_FORMATS, 'xlsx-vs-csv']) {
      const almanacS = median(almanacRuns[format]!.map((r) => r.seconds));
      const baselineS = median(baselineRuns[format]!.map((r) => r.seconds));
      results[format] = {
        almanacS: +almanacS.toFixed(2),
        baselineS: +baselineS.toFixed(2),
        // rows/s over rows/s: the same rows on both sides.
        ratio: +(baselineS / almanacS).toFixed(2),
        bytes: almanacRuns[format]![0]!.bytes,
        baselineBytes: baselineRuns[format]![0]!.bytes,
        peakRssMb: mb(peaks[format]!),
      };
      console.log(
        `ratio export-${format}: ${results[format].ratio} (almanac ${results[format].almanacS} s, baseline ${results[format].baselineS} s DuckDB COPY to ${format === 'xlsx-vs-csv' ? 'CSV' : format}; ${rows} rows, ${mb(results[format].bytes)} MB vs ${mb(results[format].baselineBytes)} MB; server peak RSS so far ${results[format].peakRssMb} MB)`,
      );
    }
    console.log(`rss export-server: before ${mb(rssBefore)} MB, peak during ${mb(rssPeak)} MB, after ${mb(rssAfter)} MB`);
    return { rows, runs: RUNS, formats: results, rssMb: { before: mb(rssBefore), peak: mb(rssPeak), after: mb(rssAfter) } };
  });
}
