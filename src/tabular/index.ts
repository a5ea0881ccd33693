/**
 * The file-in, file-out core of the resource pipeline: what a downloaded resource is, and for CSV/TSV a
 * typed Parquet preview with its schema record and the text it contributes to search. Nothing here knows
 * about HTTP, the database or object storage; the pipeline's activities call these with local paths.
 *
 *   detectFormat(path, hints)      → { format, mimetype, tabular }      content first, hints break ties
 *   buildTabularPreview({...})     → { parquetPath, schema, dialect, encoding, duckdbTypes }
 *   extractText({ parquetPath })   → header and first rows as plain text (64 KB)
 *
 * Every failure that is the file's fault is a `TabularError` with a short message for the uploader.
 */
export { detectFormat, type DetectedFormat, type TabularKind } from './detect-format.ts';
export type { FormatHints } from './formats.ts';
export { buildTabularPreview, DEFAULT_PREVIEW_MAX_BYTES, type BuildTabularPreviewOptions, type TabularPreview } from './preview.ts';
export { extractText, DEFAULT_TEXT_MAX_BYTES, type ExtractTextOptions } from './extract-text.ts';
export { mapDuckDbType, type ColumnSchema, type ColumnStats, type ColumnType, type TableSchema } from './column-schema.ts';
export type { CsvDialect } from './csv-read.ts';
export type { TextEncoding } from './encoding.ts';
export { DEFAULT_DUCKDB_LIMITS, type DuckDbLimits } from './duckdb-session.ts';
export { TabularError, type TabularErrorCode } from './errors.ts';
