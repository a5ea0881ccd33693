/**
 * Files and the resource pipeline, against a real MinIO:
 * - seconds from upload-complete to queryable for a 50 MB CSV built from the real CSVs, against raw
 *   DuckDB's CSV→Parquet of the same file (the ratio is the pipeline's overhead);
 * - proxied upload throughput against a direct presigned PUT to the same MinIO (ratio);
 * - the API process's peak RSS while 100 MB and 1 GB stream through it from curl (must not grow with the file).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { createLogger } from '../src/logger.ts';
import { benchToken, startAppOn, startEngines } from '../test/helpers/engines.ts';
import { SHARED_DATA } from '../test/helpers/shared-data.ts';

const REAL_CSV = path.join(SHARED_DATA, 'real-csv/fivethirtyeight_congress-demographics_data_aging_congress.csv');
const MB = 1024 * 1024;

/** The real file's header once, then its rows again and again up to `bytes`. */
export async function buildCsv(file: string, bytes: number) {
  const text = await fsp.readFile(REAL_CSV, 'utf8');
  const newline = text.indexOf('\n');
  const header = text.slice(0, newline + 1);
  const rows = text.slice(newline + 1);
  const out = fs.createWriteStream(file);
  out.write(header);
  let written = header.length;
  while (written < bytes) {
    if (!out.write(rows)) await new Promise<void>((r) => out.once('drain', () => r()));
    written += Buffer.byteLength(rows);
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed<T>(work: () => Promise<T>) {
  const start = performance.now();
  const result = await work();
  return { seconds: (performance.now() - start) / 1000, result };
}

export async function benchPipeline() {
  const log = createLogger('warn');
  const engines = await startEngines('bench-pipeline', log, { minio: true });
  const almanac = await startAppOn(engines, { UPLOAD_MAX_BYTES: '2gb' }, log);
  const base = `${almanac.url}/api/v1`;
  try {
    const token = await benchToken(almanac);
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const post = async (url: string, body?: unknown) =>
      (await fetch(`${base}${url}`, { method: 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) })).json();
    await post('/organizations', { name: 'bench-org' });
    const resources = (
      await post('/packages', {
        name: 'bench-files',
        title: 'Bench',
        ownerOrg: 'bench-org',
        licenseId: 'cc-by-4.0',
        resources: ['csv', 'direct', 'proxied', 'rss100', 'rss1g'].map((n) => ({ urlType: 'upload', name: n })),
      })
    ).resources.map((r: { id: string }) => r.id) as string[];
    const [csvId, directId, proxiedId, rss100Id, rss1gId] = resources as [string, string, string, string, string];

    // 1. upload-complete → queryable, against DuckDB's own CSV → Parquet.
    const csv = path.join(engines.dir, 'bench.csv');
    await buildCsv(csv, 50 * MB);
    const size = (await fsp.stat(csv)).size;
    // S3 wants a Content-Length on a PUT, so the presigned PUT sends the file as one buffer.
    const bytes = await fsp.readFile(csv);
    const signed = await post(`/resources/${csvId}/upload-url`, { filename: 'bench.csv', contentType: 'text/csv', size });
    const put = await fetch(signed.url, { method: 'PUT', headers: signed.headers, body: bytes });
    if (!put.ok) throw new Error(`presigned PUT: ${put.status} ${await put.text()}`);
    const pipeline = await timed(async () => {
      const completed = await fetch(`${base}/resources/${csvId}/upload-complete`, { method: 'POST', headers });
      if (!completed.ok) throw new Error(`upload-complete: ${completed.status} ${await completed.text()}`);
      const deadline = Date.now() + 10 * 60_000;
      while (Date.now() < deadline) {
        const schema = await (await fetch(`${base}/resources/${csvId}/schema`)).json();
        if (schema.queryable) return schema.schema.rowCount as number;
        const status = await (await fetch(`${base}/resources/${csvId}/pipeline-status`)).json();
        if (status.status === 'failed') throw new Error(`pipeline failed: ${status.error}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('the pipeline did not finish within 10 minutes');
    });
    const duck = await DuckDBInstance.create(':memory:');
    const conn = await duck.connect();
    const raw = await timed(() =>
      conn.run(`COPY (SELECT * FROM read_csv('${csv}')) TO '${path.join(engines.dir, 'raw.parquet')}' (FORMAT parquet)`),
    );
    conn.closeSync();

    // 2. Proxied upload against a direct PUT to MinIO, same bytes, both sent by curl: a client in a process
    // of its own, as a real one is (a fetch from this process would share the server's event loop). Runs
    // alternate, and each side's median counts.
    const curl = (args: string[]) =>
      new Promise<void>((resolve, reject) => {
        const child = spawn('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-T', csv, ...args], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.on('error', reject);
        child.on('exit', () => (out === '200' ? resolve() : reject(new Error(`curl ${args.at(-1)}: HTTP ${out}`))));
      });
    // Each proxied upload starts the file's pipeline: the next run waits for it, so as not to share the CPU.
    const pipelineSettled = async (id: string) => {
      for (;;) {
        const { status } = await (await fetch(`${base}/resources/${id}/pipeline-status`, { headers })).json();
        if (status !== 'queued' && status !== 'running') return;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const directRuns: number[] = [];
    const proxiedRuns: number[] = [];
    for (let run = 0; run < 5; run++) {
      const url = await post(`/resources/${directId}/upload-url`, { filename: 'bench.csv', contentType: 'text/csv', size });
      directRuns.push((await timed(() => curl(['-H', 'Content-Type: text/csv', url.url]))).seconds);
      const proxiedUrl = `${base}/resources/${proxiedId}/upload`;
      const auth = `Authorization: ${headers.Authorization}`;
      proxiedRuns.push((await timed(() => curl(['-X', 'POST', '-H', auth, '-H', 'Content-Type: text/csv', proxiedUrl]))).seconds);
      await pipelineSettled(proxiedId);
    }
    const direct = { seconds: median(directRuns) };
    const proxied = { seconds: median(proxiedRuns) };

    // 3. Peak RSS of this process (API and worker) while big files stream through. The client is curl, a
    // process of its own, so that only the server's memory is measured.
    const rss = async (id: string, bytes: number) => {
      const gc = (globalThis as { gc?: () => void }).gc;
      gc?.();
      const before = process.memoryUsage().rss;
      let peak = before;
      let ticks = 0;
      // With --expose-gc the sampler also collects, so the peak is memory held, not garbage awaiting a
      // lazy collector.
      const sampler = setInterval(() => {
        if (gc && ++ticks % 10 === 0) gc();
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 20);
      const status = await new Promise<string>((resolve, reject) => {
        const curl = spawn(
          'sh',
          [
            '-c',
            `head -c ${bytes} /dev/zero | curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: $AUTH" ` +
              `-H 'Content-Type: application/octet-stream' -T - '${base}/resources/${id}/upload'`,
          ],
          { env: { ...process.env, AUTH: headers.Authorization }, stdio: ['ignore', 'pipe', 'inherit'] },
        );
        let out = '';
        curl.stdout.on('data', (c: Buffer) => (out += c.toString()));
        curl.on('error', reject);
        curl.on('exit', () => resolve(out));
      });
      clearInterval(sampler);
      if (status !== '200') throw new Error(`upload of ${bytes} bytes: HTTP ${status}`);
      return {
        beforeMb: +(before / MB).toFixed(0),
        peakMb: +(peak / MB).toFixed(0),
        growthMb: +((peak - before) / MB).toFixed(0),
        forcedGc: !!gc,
      };
    };

    console.log(
      `ratio upload-complete-to-queryable: ${(pipeline.seconds / raw.seconds).toFixed(2)} (almanac ${pipeline.seconds.toFixed(2)} s, baseline raw DuckDB CSV→Parquet ${raw.seconds.toFixed(2)} s; target 1.5× + 1 s = ${(1.5 * raw.seconds + 1).toFixed(2)} s)`,
    );
    console.log(
      `ratio proxied-upload: ${(direct.seconds / proxied.seconds).toFixed(2)} (almanac ${(size / MB / proxied.seconds).toFixed(1)} MB/s, baseline direct PUT to MinIO ${(size / MB / direct.seconds).toFixed(1)} MB/s)`,
    );
    return {
      csvMb: +(size / MB).toFixed(1),
      previewRows: pipeline.result,
      uploadCompleteToQueryableSeconds: +pipeline.seconds.toFixed(2),
      rawDuckdbCsvToParquetSeconds: +raw.seconds.toFixed(2),
      pipelineRatio: +(pipeline.seconds / raw.seconds).toFixed(2),
      directPutMbPerSecond: +(size / MB / direct.seconds).toFixed(1),
      proxiedUploadMbPerSecond: +(size / MB / proxied.seconds).toFixed(1),
      uploadThroughputRatio: +(direct.seconds / proxied.seconds).toFixed(2),
      rss100Mb: await rss(rss100Id, 100 * MB),
      rss1Gb: await rss(rss1gId, 1024 * MB),
    };
  } finally {
    await engines.stop();
  }
}
