import { once } from 'node:events';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';

/**
 * An XLSX file streamed: the few fixed parts of a one-sheet workbook, then the sheet, its rows taken as
 * they come (already XML, rendered by DuckDB: export-sql.ts) and deflated on the way into the zip. Nothing
 * holds more than a stream's buffers, whatever the number of rows; strings are inline, so there is no
 * shared-strings table to build in memory first.
 */

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PACKAGE_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
const TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml';

const PARTS: Array<[string, string]> = [
  [
    '[Content_Types].xml',
    `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      `<Override PartName="/xl/workbook.xml" ContentType="${TYPE}.sheet.main+xml"/>` +
      `<Override PartName="/xl/worksheets/sheet1.xml" ContentType="${TYPE}.worksheet+xml"/>` +
      `<Override PartName="/xl/styles.xml" ContentType="${TYPE}.styles+xml"/></Types>`,
  ],
  [
    '_rels/.rels',
    `${XML}<Relationships xmlns="${PACKAGE_REL}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
  ],
  [
    'xl/workbook.xml',
    `${XML}<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets><sheet name="data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
  ],
  [
    'xl/_rels/workbook.xml.rels',
    `${XML}<Relationships xmlns="${PACKAGE_REL}">` +
      `<Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>` +
      `<Relationship Id="rId2" Type="${REL}/styles" Target="styles.xml"/></Relationships>`,
  ],
  [
    // The least a spreadsheet application accepts without offering to repair the file.
    'xl/styles.xml',
    `${XML}<styleSheet xmlns="${MAIN}"><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>` +
      '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
      '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
      '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
      '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs></styleSheet>',
  ],
];

/**
 * Writes the workbook to `out`: `headerRow` (a `<row>` element) first, then every byte of `rows`, which
 * must be `<row>` elements separated by nothing but white space. Level 1 deflate: the sheet is most of
 * the file and most of the time, and level 1 takes a third of the default's time for a few per cent more bytes.
 */
export async function writeXlsx(headerRow: string, rows: Readable, out: Writable): Promise<void> {
  await pipeline(Readable.from(zipEntries(headerRow, rows), { objectMode: false }), out);
}

/**
 * A zip written by hand rather than by yazl, whose CRC-32 is JavaScript (a second per 250 MB of sheet, on
 * this thread); zlib's own is native. The small parts are deflated whole; the sheet is streamed, its
 * sizes and CRC in a data descriptor after it, and Zip64 records only where a size or offset needs them.
 */
async function* zipEntries(headerRow: string, rows: Readable): AsyncGenerator<Buffer> {
  const dosTime = dosDateTime(new Date());
  const entries: ZipEntry[] = [];
  let offset = 0;
  const emit = (buffer: Buffer) => {
    offset += buffer.length;
    return buffer;
  };
  for (const [name, text] of PARTS) {
    const data = Buffer.from(text);
    const deflated = zlib.deflateRawSync(data);
    const entry: ZipEntry = {
      name: Buffer.from(name),
      crc: zlib.crc32(data),
      size: data.length,
      compressed: deflated.length,
      offset,
      streamed: false,
    };
    entries.push(entry);
    yield emit(localHeader(entry, dosTime));
    yield emit(deflated);
  }
  const sheet: ZipEntry = { name: Buffer.from('xl/worksheets/sheet1.xml'), crc: 0, size: 0, compressed: 0, offset, streamed: true };
  entries.push(sheet);
  yield emit(localHeader(sheet, dosTime));
  // Output in 256 KB pieces rather than zlib's 16 KB: fewer trips to the thread pool for each MB of rows.
  const deflate = zlib.createDeflateRaw({ level: 1, chunkSize: 256 * 1024 });
  const feed = async () => {
    const take = async (chunk: Buffer) => {
      sheet.crc = zlib.crc32(chunk, sheet.crc);
      sheet.size += chunk.length;
      if (!deflate.write(chunk)) await once(deflate, 'drain');
    };
    await take(Buffer.from(`${XML}<worksheet xmlns="${MAIN}"><sheetData>${headerRow}`));
    for await (const chunk of rows) await take(chunk as Buffer);
    await take(Buffer.from('</sheetData></worksheet>'));
    deflate.end();
  };
  // A failed source fails the deflate stream, and so the loop below.
  feed().catch((err: unknown) => deflate.destroy(err instanceof Error ? err : new Error(String(err))));
  for await (const chunk of deflate as AsyncIterable<Buffer>) {
    sheet.compressed += chunk.length;
    yield emit(chunk);
  }
  yield emit(dataDescriptor(sheet));
  const directoryStart = offset;
  for (const entry of entries) yield emit(centralHeader(entry, dosTime));
  yield emit(directoryEnd(entries.length, directoryStart, offset - directoryStart));
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

const MAX32 = 0xffffffff;
/** Bit 3 (data descriptor) for streamed entries; bit 11 (UTF-8 names) always. */
const flags = (entry: ZipEntry) => (entry.streamed ? 0x0808 : 0x0800);

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
  header.writeUInt16LE(8, 8); // deflate
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
  const large = [entry.size, entry.compressed, entry.offset].map((n) => n >= MAX32);
  const extra = Buffer.alloc(large.some(Boolean) ? 4 + 8 * large.filter(Boolean).length : 0);
  if (extra.length) {
    extra.writeUInt16LE(0x0001, 0);
    extra.writeUInt16LE(extra.length - 4, 2);
    let at = 4;
    for (const [i, n] of [entry.size, entry.compressed, entry.offset].entries()) {
      if (large[i]) at = extra.writeBigUInt64LE(BigInt(n), at);
    }
  }
  const version = extra.length ? 45 : 20;
  const header = Buffer.alloc(46);
  header.writeUInt32LE(0x02014b50, 0);
  header.writeUInt16LE((3 << 8) | version, 4); // made by: Unix
  header.writeUInt16LE(version, 6);
  header.writeUInt16LE(flags(entry), 8);
  header.writeUInt16LE(8, 10);
  header.writeUInt16LE(dos.time, 12);
  header.writeUInt16LE(dos.day, 14);
  header.writeUInt32LE(entry.crc, 16);
  header.writeUInt32LE(large[1] ? MAX32 : entry.compressed, 20);
  header.writeUInt32LE(large[0] ? MAX32 : entry.size, 24);
  header.writeUInt16LE(entry.name.length, 28);
  header.writeUInt16LE(extra.length, 30);
  // Comment length, disk number, internal and external attributes: zero but the mode, -rw-r--r--.
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
