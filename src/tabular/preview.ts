import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { computeColumnSchemas, describeParquet, type TableSchema } from './column-schema.ts';
import { chooseCsvOptions, copyCsvToParquet, sniffDialect, type CsvDialect, type CsvOptions } from './csv-read.ts';
import { classifyContent, type ContentClass, type TabularKind } from './detect-format.ts';
import { DuckDbSession, DuckDbStatementError, type DuckDbLimits } from './duckdb-session.ts';
import type { TextEncoding } from './encoding.ts';
import { TabularError } from './errors.ts';
import { readHead } from './file-head.ts';
import { NotUtf8Error, writeUtf8Prefix, type SourcePrefix } from './source-prefix.ts';

/** The spec's preview limit: a larger source is previewed from its first 50 MB (decimal megabytes). */
export const DEFAULT_PREVIEW_MAX_BYTES = 50_000_000;

// Enough rows for DuckDB to see the quoting before the full prefix is cut at a record end.
const SNIFF_SAMPLE_BYTES = 1_000_000;

export interface BuildTabularPreviewOptions {
  sourcePath: string;
  /** Scratch directory owned by the caller; the preview is written there and DuckDB can see nothing else. */
  workDir: string;
  /** Bytes of the source read at most. */
  maxBytes?: number;
  /** From `detectFormat`; only used as a last-resort delimiter when DuckDB's detection fails. */
  tabular: TabularKind;
  limits?: Partial<DuckDbLimits>;
}

export interface TabularPreview {
  /** `<workDir>/preview.parquet`. */
  parquetPath: string;
  schema: TableSchema;
  dialect: CsvDialect;
  /** Encoding of the source; the preview is always UTF-8. */
  encoding: TextEncoding;
  /** DuckDB's type of each preview column, in order, as the Parquet is read back. */
  duckdbTypes: string[];
}

/**
 * CSV/TSV file in, typed Parquet preview and schema record out. Throws `TabularError` for anything about
 * the file that prevents a preview; other errors are the machine's (I/O) and may be retried.
 * Intermediate files are removed; `preview.parquet` is the caller's to upload.
 */
export async function buildTabularPreview(options: BuildTabularPreviewOptions): Promise<TabularPreview> {
  const maxBytes = options.maxBytes ?? DEFAULT_PREVIEW_MAX_BYTES;
  const workDir = resolve(options.workDir);
  await mkdir(workDir, { recursive: true });
  const head = await readHead(options.sourcePath);
  const content = classifyContent(head.bytes, head.complete);
  const guessedEncoding = textEncodingOrRefuse(content);
  const parquetPath = join(workDir, 'preview.parquet');
  const preparedPath = join(workDir, '.tabular-source.csv');
  const samplePath = join(workDir, '.tabular-sniff-sample.csv');
  let db: DuckDbSession | undefined;
  try {
    db = await DuckDbSession.open(workDir, options.limits);
    let quoting: Quoting = { quote: '"', escape: '"' };
    let encoding = guessedEncoding;
    if (head.size > maxBytes) {
      ({ quoting, encoding } = await sniffQuoting(db, options, samplePath, encoding, Math.min(maxBytes, SNIFF_SAMPLE_BYTES)));
    }
    const prepared = await writeUtf8PrefixAs(encoding, { ...options, ...quoting, destPath: preparedPath, maxBytes });
    const chosen = await chooseCsvOptions(db, prepared.prefix.path, options.tabular);
    const used = await copyCsvToParquet(db, prepared.prefix.path, parquetPath, chosen);
    const columns = await describeParquet(db, parquetPath);
    const { rowCount, columns: columnSchemas } = await computeColumnSchemas(db, parquetPath, columns);
    const dialect = await sniffDialect(db, prepared.prefix.path, used).catch((error: unknown) => {
      if (error instanceof DuckDbStatementError) return assumedDialect(options.tabular, quoting);
      throw error;
    });
    return {
      parquetPath,
      schema: { rowCount, columns: columnSchemas, previewTruncated: prepared.prefix.truncated },
      dialect,
      encoding: prepared.encoding,
      duckdbTypes: columns.map((column) => column.duckdbType),
    };
  } catch (error) {
    await rm(parquetPath, { force: true });
    if (error instanceof DuckDbStatementError) {
      throw new TabularError('unreadable', `The file could not be read: ${error.message}`);
    }
    // TabularError is the file's fault and final; anything else (disk full, source missing) is the
    // worker's and worth a retry, so it is not dressed up as one.
    throw error;
  } finally {
    await db?.close();
    await Promise.all([rm(preparedPath, { force: true }), rm(samplePath, { force: true })]);
  }
}

interface Quoting {
  quote: string | null;
  escape: string | null;
}

function textEncodingOrRefuse(content: ContentClass): TextEncoding {
  switch (content.kind) {
    case 'empty':
      throw new TabularError('empty_file', 'The file is empty');
    case 'binary':
      throw new TabularError('not_text', 'The file is not valid UTF-8, UTF-16 or Windows-1252 text');
    case 'magic':
      throw new TabularError('not_tabular', refusalOf(content.format));
    case 'text':
      if (content.format === 'CSV' || content.format === 'TSV' || content.format === 'TXT') {
        return content.encoding.encoding;
      }
      throw new TabularError('not_tabular', `The file is ${content.format}, not CSV or TSV text`);
  }
}

function refusalOf(format: string): string {
  if (['GZIP', 'BZIP2', 'XZ', 'ZSTD'].includes(format)) {
    return `The file is ${format}-compressed; compressed CSV is not previewed, upload it uncompressed`;
  }
  if (format === 'ZIP' || format === '7Z') return `The file is a ${format} archive, not CSV or TSV text`;
  if (format === 'OLE2') return 'The file is a legacy Office document, not CSV or TSV text';
  return `The file is ${format}, not CSV or TSV text`;
}

/**
 * The cut at a record end must know the quote and escape characters, so for a source over the limit
 * DuckDB first sniffs a small prefix (itself cut with RFC 4180 quoting). A sample it cannot read leaves
 * RFC 4180 quoting in force; the full read will report the real problem.
 */
async function sniffQuoting(
  db: DuckDbSession,
  options: BuildTabularPreviewOptions,
  samplePath: string,
  encoding: TextEncoding,
  sampleBytes: number,
): Promise<{ quoting: Quoting; encoding: TextEncoding }> {
  const rfc4180: Quoting = { quote: '"', escape: '"' };
  try {
    const sample = await writeUtf8PrefixAs(encoding, { ...options, ...rfc4180, destPath: samplePath, maxBytes: sampleBytes });
    const sampleOptions: CsvOptions = await chooseCsvOptions(db, sample.prefix.path, options.tabular);
    const dialect = await sniffDialect(db, sample.prefix.path, sampleOptions);
    return { quoting: { quote: dialect.quote, escape: dialect.escape }, encoding: sample.encoding };
  } catch (error) {
    // Only running out of time is final here; any other trouble with the sample is the full read's to report.
    if (error instanceof TabularError && error.code !== 'timeout') return { quoting: rfc4180, encoding };
    if (error instanceof DuckDbStatementError) return { quoting: rfc4180, encoding };
    throw error;
  }
}

/** UTF-8 that turns out invalid past the head is re-read as Windows-1252, the brief's fallback. */
async function writeUtf8PrefixAs(
  encoding: TextEncoding,
  options: { sourcePath: string; destPath: string; maxBytes: number; quote: string | null; escape: string | null },
): Promise<{ prefix: SourcePrefix; encoding: TextEncoding }> {
  try {
    return { prefix: await writeUtf8Prefix({ ...options, encoding }), encoding };
  } catch (error) {
    if (!(error instanceof NotUtf8Error)) throw error;
    return { prefix: await writeUtf8Prefix({ ...options, encoding: 'windows-1252' }), encoding: 'windows-1252' };
  }
}

function assumedDialect(tabular: TabularKind, quoting: Quoting): CsvDialect {
  return { delimiter: tabular === 'tsv' ? '\t' : ',', ...quoting, header: true, newline: null };
}
