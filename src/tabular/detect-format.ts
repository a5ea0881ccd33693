import { decodeHead, detectEncoding, looksBinary, type EncodingGuess } from './encoding.ts';
import { sniffDelimiter } from './delimiter-sniff.ts';
import { readHead } from './file-head.ts';
import { formatsFromHints, mimetypeOf, OCTET_STREAM, type FormatHints } from './formats.ts';

export type TabularKind = 'csv' | 'tsv';

export interface DetectedFormat {
  /** Upper-case catalog format (`CSV`, `PDF`, `GZIP`, …); null for unrecognised binary data. */
  format: string | null;
  mimetype: string;
  /** Set when the pipeline should build a preview; compressed CSV (`.csv.gz`) is GZIP here, not tabular. */
  tabular: TabularKind | null;
}

/**
 * What the bytes themselves say, before any hint. `text` covers everything decodable as text;
 * its `format` is a guess from the content alone.
 */
export type ContentClass =
  | { kind: 'empty' }
  | { kind: 'magic'; format: string; zipEntries?: string[] }
  | { kind: 'binary' }
  | { kind: 'text'; format: TextFormat; encoding: EncodingGuess; tabularConfident?: boolean };

type TextFormat = 'CSV' | 'TSV' | 'TXT' | 'JSON' | 'GEOJSON' | 'JSONL' | 'XML' | 'HTML' | 'KML' | 'GPX' | 'SVG';

/**
 * Formats the bytes can confirm or refute. A hint naming one of them is believed only when the bytes agree;
 * a hint naming anything else (SHP, GML, MD, …) is kept when the bytes have nothing better to say.
 */
const VERIFIABLE = new Set<string>([
  'CSV',
  'TSV',
  'TXT',
  'JSON',
  'GEOJSON',
  'JSONL',
  'XML',
  'HTML',
  'KML',
  'GPX',
  'SVG',
  'PDF',
  'PNG',
  'JPEG',
  'GIF',
  'TIFF',
  'ZIP',
  'XLSX',
  'DOCX',
  'PPTX',
  'ODS',
  'ODT',
  'XLS',
  'DOC',
  'PPT',
  'PARQUET',
  'SQLITE',
  'GZIP',
  'BZIP2',
  'XZ',
  'ZSTD',
  '7Z',
]);

export async function detectFormat(path: string, hints: FormatHints = {}): Promise<DetectedFormat> {
  const head = await readHead(path);
  return resolveFormat(classifyContent(head.bytes, head.complete), formatsFromHints(hints));
}

export function resolveFormat(content: ContentClass, hinted: string[]): DetectedFormat {
  const unverifiableHint = hinted.find((format) => !VERIFIABLE.has(format)) ?? null;
  switch (content.kind) {
    case 'empty': {
      // An empty upload declared as CSV stays "tabular" so the preview step reports "The file is empty"
      // instead of the resource silently never becoming queryable.
      const format = hinted[0] ?? null;
      return { format, mimetype: format ? mimetypeOf(format) : OCTET_STREAM, tabular: tabularKindOf(format) };
    }
    case 'magic': {
      const format = refineContainer(content, hinted);
      return { format, mimetype: format ? mimetypeOf(format) : OCTET_STREAM, tabular: null };
    }
    case 'binary':
      return {
        format: unverifiableHint,
        mimetype: unverifiableHint ? mimetypeOf(unverifiableHint) : OCTET_STREAM,
        tabular: null,
      };
    case 'text': {
      let format: string = content.format;
      const declaredTable = hinted.some((hint) => hint === 'CSV' || hint === 'TSV');
      if ((format === 'CSV' || format === 'TSV') && !content.tabularConfident && !declaredTable) {
        // Prose with a comma or two a line looks delimited too: without the publisher's word for it, only a
        // confident sniff makes a table (and a queryable resource).
        format = unverifiableHint ?? 'TXT';
      } else if (format === 'TXT' && declaredTable) {
        // No delimiter in sight (a one-column table, a header alone): the declared CSV/TSV breaks the tie.
        format = hinted.find((hint) => hint === 'CSV' || hint === 'TSV')!;
      } else if (format === 'JSON' && hinted.includes('GEOJSON')) {
        format = 'GEOJSON';
      } else if ((format === 'TXT' || format === 'XML' || format === 'JSON') && unverifiableHint) {
        // A more specific name for the same kind of text: `.md`, `.gml`, `.topojson`.
        format = unverifiableHint;
      }
      const mimetype = mimetypeOf(format) !== OCTET_STREAM ? mimetypeOf(format) : mimetypeOf(content.format);
      return { format, mimetype, tabular: tabularKindOf(format) };
    }
  }
}

function tabularKindOf(format: string | null): TabularKind | null {
  if (format === 'CSV') return 'csv';
  if (format === 'TSV') return 'tsv';
  return null;
}

// Zip and OLE2 are containers: their entries (or, failing that, the hint) name the actual format.
function refineContainer(content: { format: string; zipEntries?: string[] }, hinted: string[]): string | null {
  if (content.format === 'ZIP') {
    const entries = content.zipEntries ?? [];
    if (entries.some((name) => name.startsWith('xl/'))) return 'XLSX';
    if (entries.some((name) => name.startsWith('word/'))) return 'DOCX';
    if (entries.some((name) => name.startsWith('ppt/'))) return 'PPTX';
    if (entries.includes('mimetype:application/vnd.oasis.opendocument.spreadsheet')) return 'ODS';
    if (entries.includes('mimetype:application/vnd.oasis.opendocument.text')) return 'ODT';
    return hinted.find((hint) => ['XLSX', 'DOCX', 'PPTX', 'ODS', 'ODT'].includes(hint)) ?? 'ZIP';
  }
  if (content.format === 'OLE2') return hinted.find((hint) => ['XLS', 'DOC', 'PPT'].includes(hint)) ?? 'XLS';
  return content.format;
}

const MAGIC: ReadonlyArray<{ format: string; bytes: number[] }> = [
  { format: 'PARQUET', bytes: [0x50, 0x41, 0x52, 0x31] },
  { format: 'ZIP', bytes: [0x50, 0x4b, 0x03, 0x04] },
  { format: 'ZIP', bytes: [0x50, 0x4b, 0x05, 0x06] },
  { format: 'GZIP', bytes: [0x1f, 0x8b] },
  { format: 'BZIP2', bytes: [0x42, 0x5a, 0x68] },
  { format: 'XZ', bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] },
  { format: 'ZSTD', bytes: [0x28, 0xb5, 0x2f, 0xfd] },
  { format: '7Z', bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c] },
  { format: 'PDF', bytes: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  { format: 'PNG', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { format: 'JPEG', bytes: [0xff, 0xd8, 0xff] },
  { format: 'GIF', bytes: [0x47, 0x49, 0x46, 0x38, 0x37, 0x61] },
  { format: 'GIF', bytes: [0x47, 0x49, 0x46, 0x38, 0x39, 0x61] },
  { format: 'TIFF', bytes: [0x49, 0x49, 0x2a, 0x00] },
  { format: 'TIFF', bytes: [0x4d, 0x4d, 0x00, 0x2a] },
  { format: 'OLE2', bytes: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1] },
  { format: 'SQLITE', bytes: [...Buffer.from('SQLite format 3\0', 'latin1')] },
];

/** `complete` says `head` is the whole file. */
export function classifyContent(head: Buffer, complete: boolean): ContentClass {
  if (head.length === 0) return { kind: 'empty' };
  const magic = MAGIC.find(({ bytes }) => bytes.every((byte, index) => head[index] === byte));
  // "BZh" is also how a text file may start; a bzip2 stream follows it with the block size digit.
  if (magic && !(magic.format === 'BZIP2' && !(head[3]! >= 0x31 && head[3]! <= 0x39))) {
    return magic.format === 'ZIP'
      ? { kind: 'magic', format: 'ZIP', zipEntries: zipEntryNames(head) }
      : { kind: 'magic', format: magic.format };
  }
  const encoding = detectEncoding(head, complete);
  if (looksBinary(head, encoding)) return { kind: 'binary' };
  const text = decodeHead(head, encoding.encoding, complete);
  const start = text.replace(/^[\s\uFEFF]+/, '');
  if (start === '') {
    // Whitespace only. A head of blanks with more to come is still text of some kind.
    return complete ? { kind: 'empty' } : { kind: 'text', format: 'TXT', encoding };
  }
  const structured = markupOrJson(start, complete);
  if (structured) return { kind: 'text', format: structured, encoding };
  const { delimiter, confident } = sniffDelimiter(text, complete);
  const format = delimiter === '\t' ? 'TSV' : delimiter ? 'CSV' : 'TXT';
  return { kind: 'text', format, encoding, tabularConfident: confident };
}

const GEOJSON_TYPES =
  /"type"\s*:\s*"(FeatureCollection|Feature|GeometryCollection|Point|MultiPoint|LineString|MultiLineString|Polygon|MultiPolygon)"/;

function markupOrJson(start: string, complete: boolean): TextFormat | null {
  if (start[0] === '{' || start[0] === '[') return jsonFormat(start, complete);
  if (start[0] === '<') return markupFormat(start);
  return null;
}

/**
 * A whole file is parsed; a head can only be judged by its opening. `[id],[name]` headers and the like
 * fail both tests and fall through to the delimiter sniff.
 */
function jsonFormat(start: string, complete: boolean): TextFormat | null {
  if (complete) {
    try {
      const value: unknown = JSON.parse(start);
      return isGeoJson(value) ? 'GEOJSON' : 'JSON';
    } catch {
      const lines = start.split(/\r?\n/).filter((line) => line.trim() !== '');
      return lines.length > 1 && lines.every(parsesAsJson) ? 'JSONL' : null;
    }
  }
  if (!/^[[{]\s*(["{[\]}]|-?\d|true|false|null)/.test(start)) return null;
  const firstLine = start.split(/\r?\n/, 1)[0]!;
  if (start[0] === '{' && parsesAsJson(firstLine) && /\r?\n\s*\{/.test(start)) return 'JSONL';
  return start[0] === '{' && GEOJSON_TYPES.test(start.slice(0, 4096)) ? 'GEOJSON' : 'JSON';
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function isGeoJson(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' && GEOJSON_TYPES.test(`"type":"${type}"`);
}

function markupFormat(start: string): TextFormat | null {
  const head = start.slice(0, 4096);
  if (/^<!doctype\s+html/i.test(head)) return 'HTML';
  // Skip the XML declaration, comments and doctype to reach the root element's name.
  const root = head
    .replace(/<\?[\s\S]*?\?>/g, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<!DOCTYPE[^>]*>/gi, '')
    .trimStart()
    .match(/^<([A-Za-z_][\w.:-]*)[\s/>]/)?.[1];
  if (!root) return head.startsWith('<?xml') ? 'XML' : null;
  const local = root.split(':').pop()!.toLowerCase();
  if (local === 'html') return 'HTML';
  if (local === 'kml') return 'KML';
  if (local === 'gpx') return 'GPX';
  if (local === 'svg') return 'SVG';
  return 'XML';
}

/**
 * Names of the entries whose local headers fit in the head, which is where Office writes its telltale
 * folders. ODF stores its `mimetype` entry first and uncompressed, so its content is read as well.
 */
function zipEntryNames(head: Buffer): string[] {
  const names: string[] = [];
  let offset = 0;
  while (offset + 30 <= head.length && head.readUInt32LE(offset) === 0x04034b50 && names.length < 200) {
    const flags = head.readUInt16LE(offset + 6);
    const method = head.readUInt16LE(offset + 8);
    const compressedSize = head.readUInt32LE(offset + 18);
    const nameLength = head.readUInt16LE(offset + 26);
    const extraLength = head.readUInt16LE(offset + 28);
    const nameEnd = offset + 30 + nameLength;
    if (nameEnd > head.length) break;
    const name = head.toString('utf8', offset + 30, nameEnd);
    names.push(name);
    const dataStart = nameEnd + extraLength;
    if (name === 'mimetype' && method === 0 && dataStart + compressedSize <= head.length) {
      names.push(`mimetype:${head.toString('latin1', dataStart, dataStart + compressedSize).trim()}`);
    }
    // With a data descriptor the size is only known after the data: the next header cannot be found.
    if ((flags & 0x08) !== 0 && compressedSize === 0) break;
    offset = dataStart + compressedSize;
  }
  return names;
}
