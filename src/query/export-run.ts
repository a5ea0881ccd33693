import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import type { DuckDBConnection } from '@duckdb/node-api';
import { blobColumnBytes } from './blob-column.ts';
import { cleanDuckDbMessage } from '../tabular/duckdb-session.ts';
import type { ExportFormat } from './export-formats.ts';
import { copyTo, csvSelectList, jsonSelectList, xlsxHeaderRow, xlsxRowSelect, type ExportColumn } from './export-sql.ts';
import { refillSpares } from './fresh-instances.ts';
import {
  checkedSelect,
  isOutOfMemory,
  openSandbox,
  QueryError,
  queryTooLarge,
  readCapped,
  type QueryLimits,
  type QueryResult,
} from './sandbox.ts';
import { writeXlsx } from './xlsx-package.ts';

/**
 * An export, run in a query process (query-process.ts) inside the same sandbox as a query: the rows go
 * to a FIFO the API process reads and streams to the client (src/domain/resources/export.ts), so neither
 * process holds more than a pipe's worth of them. DuckDB writes CSV, JSON Lines and Parquet itself
 * (`COPY … TO` the FIFO); for XLSX it renders each row as XML, which this process zips (xlsx-package.ts).
 */

export interface ExportJob {
  format: ExportFormat;
  /** The FIFO the export is written to: named and read by the API process, made by this one. */
  fifo: string;
  /** A query's result (capped like the JSON answer), or null for the whole preview (no cap). */
  sql: string | null;
}

/** Told to the API process before the first byte, so that it can set its headers. */
export interface ExportReady {
  columns: string[];
  /** Known ahead for a query's result only. */
  rowCount: number | null;
  truncated: boolean;
}

/** A failure after the first byte: the client has a 200 already, so the API process can only cut the answer. */
export class ExportBroken extends Error {}

export async function runSandboxedExport(
  parquetPath: string,
  job: ExportJob,
  limits: QueryLimits,
  onReady: (ready: ExportReady) => void,
): Promise<QueryResult> {
  const started = performance.now();
  const fifos = [job.fifo];
  // Made here rather than by the API process, whose fork for mkfifo costs in proportion to its memory.
  await makeFifo(job.fifo);
  const sandbox = await openSandbox(parquetPath, limits, fifos);
  const { instance, connection } = sandbox;
  const clean = (err: unknown) => cleanDuckDbMessage(err instanceof Error ? err.message : String(err), [parquetPath, ...fifos]);
  let ready = false;
  try {
    let source = 'data';
    let rowCount: number | null = null;
    let truncated = false;
    if (job.sql !== null) {
      await checkedSelect(sandbox, job.sql, clean);
      // One row past the cap says that there were more. Checked again as written: it must still be one
      // SELECT of `data`, whatever the user's text does to the parentheses around it.
      const capped = `SELECT * FROM (\n${job.sql.replace(/;\s*$/, '')}\n) LIMIT ${limits.maxRows + 1}`;
      await checkedSelect(sandbox, capped, clean);
      await connection.run(`CREATE TEMP TABLE result AS ${capped}`);
      // The same cap as the JSON answer's, rows and bytes (as JSON), so both say the same rows.
      const kept = await readCapped(await connection.stream('SELECT * FROM result'), limits);
      rowCount = kept.rowCount;
      truncated = kept.truncated;
      source = `(SELECT * FROM result LIMIT ${rowCount})`;
    }
    const columns = await describe(connection, source);
    onReady({ columns: columns.map((c) => c.name), rowCount, truncated });
    ready = true;
    const written = await write(connection, job, columns, source);
    return {
      columns: columns.map((c) => c.name),
      rows: [],
      rowCount: written,
      truncated,
      elapsedMs: Math.round(performance.now() - started),
    };
  } catch (err) {
    if (ready) throw new ExportBroken(clean(err));
    if (err instanceof QueryError) throw err;
    if (isOutOfMemory(err)) throw queryTooLarge(limits);
    throw new QueryError('query_invalid', clean(err));
  } finally {
    setImmediate(() => {
      connection.closeSync();
      instance.closeSync();
      refillSpares();
    });
  }
}

const mkfifo = promisify(execFile);
/** The query process has no PATH (process-pool.ts gives it no environment). */
const MKFIFO = ['/usr/bin/mkfifo', '/bin/mkfifo'].find((file) => fs.existsSync(file)) ?? 'mkfifo';

/** The FIFO the API process reads once told ready: readable and writable by this user only. */
async function makeFifo(fifo: string) {
  await mkfifo(MKFIFO, ['-m', '600', fifo]);
}

async function describe(connection: DuckDBConnection, source: string): Promise<ExportColumn[]> {
  const reader = await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${source}`);
  return reader.getRowObjects().map((row) => ({ name: String(row.column_name), type: String(row.column_type) }));
}

/** The rows COPY wrote, from its own answer. */
async function copyRows(connection: DuckDBConnection, sql: string): Promise<number> {
  const reader = await connection.runAndReadAll(sql);
  return Number(reader.getRows()[0]?.[0] ?? 0);
}

async function write(connection: DuckDBConnection, job: ExportJob, columns: ExportColumn[], source: string): Promise<number> {
  switch (job.format) {
    case 'csv':
      // RFC 4180: CRLF line ends.
      return copyRows(
        connection,
        copyTo(`SELECT ${csvSelectList(columns)} FROM ${source}`, job.fifo, "FORMAT csv, HEADER true, NEW_LINE '\\r\\n'"),
      );
    case 'json':
      return copyRows(connection, copyTo(`SELECT ${jsonSelectList(columns)} FROM ${source}`, job.fifo, 'FORMAT json'));
    case 'parquet':
      // The preview's own column types, as DuckDB's Parquet writer maps them.
      return copyRows(connection, copyTo(`SELECT * FROM ${source}`, job.fifo, 'FORMAT parquet'));
    case 'xlsx':
      return writeXlsxExport(connection, job, columns, source);
  }
}

async function writeXlsxExport(connection: DuckDBConnection, job: ExportJob, columns: ExportColumn[], source: string) {
  // A streamed result rather than COPY: DuckDB computes the next chunks only as this process takes them.
  // (COPY to a pipe renders ahead of a slow reader, in memory that no limit of DuckDB's caps.)
  const result = await connection.stream(xlsxRowSelect(columns, source));
  let count = 0;
  async function* sheetRows() {
    // One chunk ahead: DuckDB renders the next rows in its threads while this one is zipped.
    const fetch = () => {
      const chunk = result.fetchChunk();
      // Awaited in the loop; a failure after the loop stopped (the client went away) is nobody's to answer.
      chunk.catch(() => undefined);
      return chunk;
    };
    let next = fetch();
    for (let chunk = await next; chunk && chunk.rowCount > 0; chunk = await next) {
      next = fetch();
      count += chunk.rowCount;
      yield blobColumnBytes(chunk, 0);
    }
  }
  // Opens once the API process has opened the read end, which it does when told ready.
  const out = fs.createWriteStream(job.fifo);
  try {
    await writeXlsx(xlsxHeaderRow(columns), sheetRows(), out);
    return count;
  } finally {
    out.destroy();
  }
}
