import { open } from 'node:fs/promises';
import { hasUtf8Bom, type TextEncoding } from './encoding.ts';
import { TabularError } from './errors.ts';

/**
 * Copies the first `maxBytes` of a source into a UTF-8 file DuckDB can read, in one streamed pass with
 * bounded memory: transcoded from UTF-16 or Windows-1252, without BOM or NUL characters (NUL is never data
 * in a CSV, and Postgres, where schema and contents text end up, rejects it), and, when the source is longer
 * than the limit, cut after the last complete record so no row is split and no quoted field is broken.
 */

const CHUNK_BYTES = 1024 * 1024;
const LF = 0x0a;
const CR = 0x0d;

export interface SourcePrefixOptions {
  sourcePath: string;
  destPath: string;
  encoding: TextEncoding;
  maxBytes: number;
  /** Quote and escape characters of the dialect; only used to find the last record end when cutting. */
  quote: string | null;
  escape: string | null;
}

export interface SourcePrefix {
  path: string;
  /** The source is longer than `maxBytes`: what was written ends at the last record that fit. */
  truncated: boolean;
  bytesWritten: number;
}

/** Raised when bytes taken for UTF-8 turn out not to be: the caller starts over as Windows-1252. */
export class NotUtf8Error extends Error {}

export async function writeUtf8Prefix(options: SourcePrefixOptions): Promise<SourcePrefix> {
  const source = await open(options.sourcePath, 'r');
  const dest = await open(options.destPath, 'w');
  try {
    const { size } = await source.stat();
    const truncated = size > options.maxBytes;
    const limit = Math.min(size, options.maxBytes);
    const transcoder = new Utf8Transcoder(options.encoding, truncated);
    const records = new RecordEndTracker(options.quote, options.escape);
    const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, Math.max(limit, 1)));
    let position = 0;
    let written = 0;
    let hasContent = false;
    while (position < limit) {
      const { bytesRead } = await source.read(chunk, 0, Math.min(chunk.length, limit - position), position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const out = transcoder.push(chunk.subarray(0, bytesRead), position >= limit);
      if (out.length === 0) continue;
      hasContent ||= containsNonBlank(out);
      if (truncated) records.scan(out, written);
      await dest.write(out, 0, out.length, written);
      written += out.length;
    }
    if (!hasContent) throw new TabularError('empty_file', 'The file is empty');
    if (!truncated) return { path: options.destPath, truncated, bytesWritten: written };
    const end = records.lastRecordEnd;
    if (end <= 0) {
      throw new TabularError('row_too_large', `The first row is longer than the preview limit of ${formatBytes(options.maxBytes)}`);
    }
    await dest.truncate(end);
    return { path: options.destPath, truncated, bytesWritten: end };
  } finally {
    await dest.close();
    await source.close();
  }
}

/**
 * UTF-8 input passes through byte for byte once a streaming fatal decoder has accepted it; other encodings
 * are decoded and re-encoded. When the input is a cut prefix, a character split by the cut is dropped (the
 * record cut happens before it anyway) instead of being flushed as invalid.
 */
class Utf8Transcoder {
  private readonly decoder: TextDecoder;
  private first = true;

  constructor(
    private readonly encoding: TextEncoding,
    private readonly cut: boolean,
  ) {
    this.decoder = new TextDecoder(encoding, { fatal: encoding === 'utf-8' });
  }

  push(bytes: Buffer, last: boolean): Buffer {
    const flush = last && !this.cut;
    let out: Buffer;
    if (this.encoding === 'utf-8') {
      try {
        this.decoder.decode(bytes, { stream: true });
        if (flush) this.decoder.decode();
      } catch {
        throw new NotUtf8Error();
      }
      out = this.first && hasUtf8Bom(bytes) ? bytes.subarray(3) : bytes;
    } else {
      const text = this.decoder.decode(bytes, { stream: true }) + (flush ? this.decoder.decode() : '');
      out = Buffer.from(text, 'utf8');
    }
    this.first = false;
    // May alias the caller's read buffer: it is written out before the next read.
    return out.includes(0) ? withoutNuls(out) : out;
  }
}

function withoutNuls(bytes: Buffer): Buffer {
  const kept = Buffer.alloc(bytes.length);
  let length = 0;
  for (const byte of bytes) if (byte !== 0) kept[length++] = byte;
  return kept.subarray(0, length);
}

function containsNonBlank(bytes: Buffer): boolean {
  for (const byte of bytes) {
    if (byte !== 0x20 && byte !== 0x09 && byte !== LF && byte !== CR && byte !== 0x0b && byte !== 0x0c) return true;
  }
  return false;
}

/**
 * Follows the quote state through UTF-8 bytes (quote, escape and line breaks are ASCII, which never occurs
 * inside a multi-byte character) and remembers where the last record outside quotes ended: the offset of
 * its line break, so the cut file ends without a dangling CR of a CRLF. With escape equal to quote (RFC
 * 4180 `""`) toggling on every quote is exact; a distinct escape (`\"`) skips the byte after it.
 */
class RecordEndTracker {
  lastRecordEnd = -1;
  private inQuotes = false;
  private escaping = false;
  private previous = -1;
  private readonly quote: number;
  private readonly escape: number;

  constructor(quote: string | null, escape: string | null) {
    this.quote = quote ? quote.charCodeAt(0) : -1;
    this.escape = escape && escape !== quote ? escape.charCodeAt(0) : -1;
  }

  scan(bytes: Buffer, offset: number): void {
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]!;
      if (this.escaping) {
        this.escaping = false;
      } else if (this.inQuotes) {
        if (byte === this.escape) this.escaping = true;
        else if (byte === this.quote) this.inQuotes = false;
      } else if (byte === this.quote) {
        this.inQuotes = true;
      } else if (byte === CR) {
        this.lastRecordEnd = offset + i;
      } else if (byte === LF && this.previous !== CR) {
        this.lastRecordEnd = offset + i;
      }
      this.previous = byte;
    }
  }
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${Math.round(bytes / 100_000) / 10} MB`;
  if (bytes >= 1_000) return `${Math.round(bytes / 100) / 10} KB`;
  return `${bytes} bytes`;
}
