import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';

/**
 * A zip archive written as a stream, for the XLSX export (xlsx-package.ts). Not yazl: its CRC-32 is
 * JavaScript, about a second per 250 MB of sheet on the export's only thread, where zlib's is native
 * (0.07 s). Small parts are deflated whole; a streamed part is deflated as it comes, on the thread pool,
 * with its CRC and sizes in a data descriptor after it. Zip64 records only where a size or an offset
 * needs them, the way yazl writes them (no Zip64 field in a local header, a 64-bit data descriptor).
 */

export interface ZipPart {
  name: string;
  data: Buffer | AsyncIterable<Buffer>;
}

interface ZipEntry {
  name: Buffer;
  crc: number;
  size: number;
  compressed: number;
  /** Where its local header starts. */
  offset: number;
  /** Sizes and CRC known only after the data: bit 3, and a data descriptor. */
  streamed: boolean;
}

/** zlib hands out its output in 16 KB pieces by default: larger ones are fewer trips to the thread pool. */
const DEFLATE_CHUNK = 256 * 1024;

/** The archive's bytes, `parts` in order, deflated at `level`. */
export async function* zipStream(parts: ZipPart[], level: number): AsyncGenerator<Buffer> {
  const dos = dosDateTime(new Date());
  const entries: ZipEntry[] = [];
  let offset = 0;
  const emit = (buffer: Buffer) => {
    offset += buffer.length;
    return buffer;
  };
  for (const { name, data } of parts) {
    const streamed = !Buffer.isBuffer(data);
    const entry: ZipEntry = { name: Buffer.from(name), crc: 0, size: 0, compressed: 0, offset, streamed };
    entries.push(entry);
    if (Buffer.isBuffer(data)) {
      const deflated = zlib.deflateRawSync(data, { level });
      entry.crc = zlib.crc32(data);
      entry.size = data.length;
      entry.compressed = deflated.length;
      yield emit(localHeader(entry, dos));
      yield emit(deflated);
      continue;
    }
    yield emit(localHeader(entry, dos));
    const counted = async function* () {
      for await (const chunk of data) {
        entry.crc = zlib.crc32(chunk, entry.crc);
        entry.size += chunk.length;
        yield chunk;
      }
    };
    const deflate = zlib.createDeflateRaw({ level, chunkSize: DEFLATE_CHUNK });
    // Fed while its output is read: the source's next bytes come while zlib deflates these. A failed
    // source fails the deflate stream, and so the loop below; a loop stopped early stops the source.
    const fed = pipeline(Readable.from(counted(), { objectMode: false }), deflate);
    fed.catch(() => undefined);
    for await (const chunk of deflate as AsyncIterable<Buffer>) {
      entry.compressed += chunk.length;
      yield emit(chunk);
    }
    await fed;
    yield emit(dataDescriptor(entry));
  }
  const directoryStart = offset;
  for (const entry of entries) yield emit(centralHeader(entry, dos));
  yield emit(directoryEnd(entries.length, directoryStart, offset - directoryStart));
}

const MAX32 = 0xffffffff;
/** Bit 3 (data descriptor) for streamed entries; bit 11 (UTF-8 names) always. */
const flags = (entry: ZipEntry) => (entry.streamed ? 0x0808 : 0x0800);
const DEFLATE = 8;

function dosDateTime(date: Date) {
  const time = (date.getHours() << 11) | (date.getMinutes() << 5) | (date.getSeconds() >> 1);
  const day = ((date.getFullYear() - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate();
  return { time, day };
}

function localHeader(entry: ZipEntry, dos: { time: number; day: number }) {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(flags(entry), 6);
  header.writeUInt16LE(DEFLATE, 8);
  header.writeUInt16LE(dos.time, 10);
  header.writeUInt16LE(dos.day, 12);
  // A streamed entry's CRC and sizes are zero here: its data descriptor has them.
  header.writeUInt32LE(entry.streamed ? 0 : entry.crc, 14);
  header.writeUInt32LE(entry.streamed ? 0 : entry.compressed, 18);
  header.writeUInt32LE(entry.streamed ? 0 : entry.size, 22);
  header.writeUInt16LE(entry.name.length, 26);
  header.writeUInt16LE(0, 28);
  return Buffer.concat([header, entry.name]);
}

function dataDescriptor(entry: ZipEntry) {
  const zip64 = entry.size >= MAX32 || entry.compressed >= MAX32;
  const descriptor = Buffer.alloc(zip64 ? 24 : 16);
  descriptor.writeUInt32LE(0x08074b50, 0);
  descriptor.writeUInt32LE(entry.crc, 4);
  if (zip64) {
    descriptor.writeBigUInt64LE(BigInt(entry.compressed), 8);
    descriptor.writeBigUInt64LE(BigInt(entry.size), 16);
  } else {
    descriptor.writeUInt32LE(entry.compressed, 8);
    descriptor.writeUInt32LE(entry.size, 12);
  }
  return descriptor;
}

function centralHeader(entry: ZipEntry, dos: { time: number; day: number }) {
  // Zip64's extra field holds, in this order, whichever of the three does not fit in 32 bits.
  const values = [entry.size, entry.compressed, entry.offset];
  const large = values.map((n) => n >= MAX32);
  const extra = Buffer.alloc(large.some(Boolean) ? 4 + 8 * large.filter(Boolean).length : 0);
  if (extra.length) {
    extra.writeUInt16LE(0x0001, 0);
    extra.writeUInt16LE(extra.length - 4, 2);
    let at = 4;
    for (const [i, n] of values.entries()) if (large[i]) at = extra.writeBigUInt64LE(BigInt(n), at);
  }
  const version = extra.length ? 45 : 20;
  const header = Buffer.alloc(46);
  header.writeUInt32LE(0x02014b50, 0);
  header.writeUInt16LE((3 << 8) | version, 4); // made by: Unix
  header.writeUInt16LE(version, 6);
  header.writeUInt16LE(flags(entry), 8);
  header.writeUInt16LE(DEFLATE, 10);
  header.writeUInt16LE(dos.time, 12);
  header.writeUInt16LE(dos.day, 14);
  header.writeUInt32LE(entry.crc, 16);
  header.writeUInt32LE(large[1] ? MAX32 : entry.compressed, 20);
  header.writeUInt32LE(large[0] ? MAX32 : entry.size, 24);
  header.writeUInt16LE(entry.name.length, 28);
  header.writeUInt16LE(extra.length, 30);
  // Comment length, disk number and internal attributes zero; external: the mode, -rw-r--r--.
  header.writeUInt32LE((0o100644 << 16) >>> 0, 38);
  header.writeUInt32LE(large[2] ? MAX32 : entry.offset, 42);
  return Buffer.concat([header, entry.name, extra]);
}

function directoryEnd(count: number, start: number, size: number) {
  const parts: Buffer[] = [];
  const zip64 = start >= MAX32 || size >= MAX32;
  if (zip64) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeUInt16LE((3 << 8) | 45, 12);
    record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(BigInt(count), 24);
    record.writeBigUInt64LE(BigInt(count), 32);
    record.writeBigUInt64LE(BigInt(size), 40);
    record.writeBigUInt64LE(BigInt(start), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(start + size), 8);
    locator.writeUInt32LE(1, 16);
    parts.push(record, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(zip64 ? MAX32 : size, 12);
  end.writeUInt32LE(zip64 ? MAX32 : start, 16);
  parts.push(end);
  return Buffer.concat(parts);
}
