/**
 * The catalog's format vocabulary: the short upper-case names stored in a resource's `format` and the
 * mimetype each implies, plus the reading of a client's hints (file name, declared format, mimetype)
 * into that vocabulary. Hints only break ties; `detect-format.ts` decides from the bytes.
 */

export const MIMETYPES: Readonly<Record<string, string>> = {
  CSV: 'text/csv',
  TSV: 'text/tab-separated-values',
  TXT: 'text/plain',
  JSON: 'application/json',
  JSONL: 'application/x-ndjson',
  GEOJSON: 'application/geo+json',
  XML: 'application/xml',
  HTML: 'text/html',
  KML: 'application/vnd.google-earth.kml+xml',
  GPX: 'application/gpx+xml',
  SVG: 'image/svg+xml',
  PDF: 'application/pdf',
  PNG: 'image/png',
  JPEG: 'image/jpeg',
  GIF: 'image/gif',
  TIFF: 'image/tiff',
  ZIP: 'application/zip',
  XLSX: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  DOCX: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  PPTX: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  ODS: 'application/vnd.oasis.opendocument.spreadsheet',
  ODT: 'application/vnd.oasis.opendocument.text',
  XLS: 'application/vnd.ms-excel',
  DOC: 'application/msword',
  PPT: 'application/vnd.ms-powerpoint',
  PARQUET: 'application/vnd.apache.parquet',
  SQLITE: 'application/vnd.sqlite3',
  GZIP: 'application/gzip',
  BZIP2: 'application/x-bzip2',
  XZ: 'application/x-xz',
  ZSTD: 'application/zstd',
  '7Z': 'application/x-7z-compressed',
};

export const OCTET_STREAM = 'application/octet-stream';

/** Extensions and declared-format spellings that differ from the canonical name. */
const ALIASES: Readonly<Record<string, string>> = {
  TAB: 'TSV',
  TEXT: 'TXT',
  NDJSON: 'JSONL',
  HTM: 'HTML',
  JPG: 'JPEG',
  TIF: 'TIFF',
  GZ: 'GZIP',
  BZ2: 'BZIP2',
  PQ: 'PARQUET',
  SQLITE3: 'SQLITE',
};

const FORMAT_BY_MIMETYPE = new Map<string, string>([
  ...Object.entries(MIMETYPES).map(([format, mimetype]) => [mimetype, format] as [string, string]),
  ['text/comma-separated-values', 'CSV'],
  ['application/csv', 'CSV'],
  ['text/tsv', 'TSV'],
  ['text/xml', 'XML'],
  ['application/x-gzip', 'GZIP'],
  ['application/x-parquet', 'PARQUET'],
]);

/** `'.csv'`, `'csv'`, `'CSV'` → `'CSV'`; unknown names pass through upper-cased (a catalog may hold SHP). */
export function canonicalFormat(name: string): string | null {
  const cleaned = name.trim().replace(/^\./, '').toUpperCase();
  if (!cleaned || !/^[A-Z0-9][A-Z0-9+._-]{0,19}$/.test(cleaned)) return null;
  return ALIASES[cleaned] ?? cleaned;
}

export function mimetypeOf(format: string): string {
  return MIMETYPES[format] ?? OCTET_STREAM;
}

export interface FormatHints {
  filename?: string | null;
  declaredFormat?: string | null;
  mimetype?: string | null;
}

/**
 * What the client says the file is, most specific first: the declared format, then the file's extension
 * (the inner one of `x.csv.gz` is ignored: the bytes are gzip), then the mimetype. Empty when silent.
 */
export function formatsFromHints(hints: FormatHints): string[] {
  const found: string[] = [];
  const add = (format: string | null | undefined) => {
    if (format && !found.includes(format)) found.push(format);
  };
  // Some clients put a mimetype where the format goes.
  if (hints.declaredFormat?.includes('/')) add(FORMAT_BY_MIMETYPE.get(hints.declaredFormat.trim().toLowerCase()));
  else if (hints.declaredFormat) add(canonicalFormat(hints.declaredFormat));
  const extension = hints.filename?.match(/\.([A-Za-z0-9]{1,10})$/)?.[1];
  if (extension) add(canonicalFormat(extension));
  const mimetype = hints.mimetype?.split(';')[0]?.trim().toLowerCase();
  if (mimetype) add(FORMAT_BY_MIMETYPE.get(mimetype));
  return found;
}
