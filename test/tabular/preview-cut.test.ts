/**
 * The preview limit: a source longer than maxBytes is previewed from its first maxBytes, cut after the
 * last complete record, never inside a quoted field, and the schema says previewTruncated. The limit is
 * placed deliberately right after a line break *inside* quotes, where cutting at the last newline would
 * split a row.
 */
import { stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { buildTabularPreview, TabularError } from '../../src/tabular/index.ts';
import { previewRowsAsText, scratchDir } from './fixtures.ts';

const LIMIT = 1_000_000;

interface Layout {
  bytes: Buffer;
  /** Offset where each data row starts. */
  rowStarts: number[];
}

/** Header plus rows until `total` bytes are passed, remembering where each row starts. */
function layout(header: string, row: (i: number) => string, total: number, encoding: BufferEncoding = 'utf8'): Layout {
  const parts = [Buffer.from(header, encoding)];
  const rowStarts: number[] = [];
  let size = parts[0]!.length;
  for (let i = 0; size <= total; i++) {
    rowStarts.push(size);
    const part = Buffer.from(row(i), encoding);
    parts.push(part);
    size += part.length;
  }
  return { bytes: Buffer.concat(parts), rowStarts };
}

/** The first row starting after `near`, and a limit just past a byte inside it. */
function limitInsideRow(file: Layout, row: (i: number) => string, near: number, inside: string) {
  const k = file.rowStarts.findIndex((start) => start > near);
  const limit = file.rowStarts[k]! + Buffer.from(row(k).slice(0, row(k).indexOf(inside) + inside.length)).length;
  return { k, limit };
}

test('a cut inside a quoted multi-line field drops that row whole and keeps every earlier row intact', async (t) => {
  const dir = await scratchDir(t);
  const row = (i: number) => `${i},"line one of ${i}\nline ""two"", of ${i}",${i}.5\n`;
  const file = layout('id,text,amount\n', row, LIMIT + 200_000);
  const { k, limit } = limitInsideRow(file, row, LIMIT - 200, '\n');
  t.is(file.bytes[limit - 1], 0x0a, 'the limit falls right after the line break inside quotes');
  const sourcePath = join(dir, 'multiline.csv');
  await writeFile(sourcePath, file.bytes);

  const preview = await buildTabularPreview({ sourcePath, workDir: join(dir, 'work'), maxBytes: limit, tabular: 'csv' });
  t.true(preview.schema.previewTruncated);
  t.is(preview.schema.rowCount, k);
  t.deepEqual(
    preview.schema.columns.map(({ name, type }) => ({ name, type })),
    [
      { name: 'id', type: 'integer' },
      { name: 'text', type: 'string' },
      { name: 'amount', type: 'float' },
    ],
  );
  t.deepEqual(preview.schema.columns[0]!.stats, { min: '0', max: String(k - 1) });
  const rows = await previewRowsAsText(preview.parquetPath);
  t.is(rows.length, k);
  const broken = rows.filter((r, i) => r.id !== String(i) || r.text !== `line one of ${i}\nline "two", of ${i}`);
  t.deepEqual(broken, []);
});

test('a source of exactly maxBytes is whole; one byte more is truncated', async (t) => {
  const dir = await scratchDir(t);
  const row = (i: number) => `${i},"x${i}"\n`;
  const file = layout('id,name\n', row, 50_000);
  const whole = file.bytes.subarray(0, file.rowStarts.at(-1)!);
  const sourcePath = join(dir, 'exact.csv');
  await writeFile(sourcePath, whole);
  const exact = await buildTabularPreview({ sourcePath, workDir: join(dir, 'a'), maxBytes: whole.length, tabular: 'csv' });
  t.false(exact.schema.previewTruncated);
  t.is(exact.schema.rowCount, file.rowStarts.length - 1);
  const less = await buildTabularPreview({ sourcePath, workDir: join(dir, 'b'), maxBytes: whole.length - 1, tabular: 'csv' });
  t.true(less.schema.previewTruncated);
  // The last row lost its line break, so it is no longer known to be complete.
  t.is(less.schema.rowCount, file.rowStarts.length - 2);
});

test('with CRLF, a limit between CR and LF keeps the row the CR ends', async (t) => {
  const dir = await scratchDir(t);
  const row = (i: number) => `${i},"a\r\nb ${i}",${i}\r\n`;
  const file = layout('id,text,n\r\n', row, 300_000);
  const k = file.rowStarts.findIndex((start) => start > 200_000);
  const limit = file.rowStarts[k + 1]! - 1;
  t.is(file.bytes[limit - 1], 0x0d);
  const sourcePath = join(dir, 'crlf.csv');
  await writeFile(sourcePath, file.bytes);
  const preview = await buildTabularPreview({ sourcePath, workDir: join(dir, 'work'), maxBytes: limit, tabular: 'csv' });
  t.true(preview.schema.previewTruncated);
  t.is(preview.schema.rowCount, k + 1);
  t.is(preview.dialect.newline, '\r\n');
  const rows = await previewRowsAsText(preview.parquetPath);
  t.deepEqual(rows.at(-1), { id: String(k), text: `a\r\nb ${k}`, n: String(k) });
});

test('backslash-escaped quotes: the cut follows the escape DuckDB sniffed, not RFC 4180 toggling', async (t) => {
  const dir = await scratchDir(t);
  // One escaped quote before the line break: toggling on every quote would think the break is outside.
  const row = (i: number) => `${i},"say \\"hi\nthere ${i}"\n`;
  const file = layout('id,text\n', row, 400_000);
  const { k, limit } = limitInsideRow(file, row, 300_000, '\n');
  const sourcePath = join(dir, 'backslash.csv');
  await writeFile(sourcePath, file.bytes);
  const preview = await buildTabularPreview({ sourcePath, workDir: join(dir, 'work'), maxBytes: limit, tabular: 'csv' });
  t.is(preview.dialect.escape, '\\');
  t.is(preview.schema.rowCount, k);
  const rows = await previewRowsAsText(preview.parquetPath);
  t.deepEqual(rows.at(-1), { id: String(k - 1), text: `say "hi\nthere ${k - 1}` });
});

test('a Windows-1252 source is cut on its own bytes and transcoded', async (t) => {
  const dir = await scratchDir(t);
  const row = (i: number) => `${i},"café ${i}\nrésumé"\n`;
  const file = layout('id,word\n', row, 150_000, 'latin1');
  const { k, limit } = limitInsideRow(file, row, 100_000, '\n');
  const sourcePath = join(dir, 'latin1.csv');
  await writeFile(sourcePath, file.bytes);
  const preview = await buildTabularPreview({ sourcePath, workDir: join(dir, 'work'), maxBytes: limit, tabular: 'csv' });
  t.is(preview.encoding, 'windows-1252');
  t.true(preview.schema.previewTruncated);
  t.is(preview.schema.rowCount, k);
  const rows = await previewRowsAsText(preview.parquetPath);
  t.deepEqual(rows.at(-1), { id: String(k - 1), word: `café ${k - 1}\nrésumé` });
});

test('a UTF-8 source cut inside a multi-byte character stays UTF-8', async (t) => {
  const dir = await scratchDir(t);
  const row = (i: number) => `${i},"ü€ ${i}"\n`;
  const file = layout('id,text\n', row, 100_000);
  const k = file.rowStarts.findIndex((start) => start > 60_000);
  // Two bytes into the three of €.
  const limit = file.rowStarts[k]! + Buffer.byteLength(`${k},"ü`) + 2;
  const sourcePath = join(dir, 'utf8.csv');
  await writeFile(sourcePath, file.bytes);
  const preview = await buildTabularPreview({ sourcePath, workDir: join(dir, 'work'), maxBytes: limit, tabular: 'csv' });
  t.is(preview.encoding, 'utf-8');
  t.is(preview.schema.rowCount, k);
  const rows = await previewRowsAsText(preview.parquetPath);
  t.deepEqual(rows.at(-1), { id: String(k - 1), text: `ü€ ${k - 1}` });
});

test('when not even the first row fits, the error says so', async (t) => {
  const dir = await scratchDir(t);
  const sourcePath = join(dir, 'wide.csv');
  await writeFile(sourcePath, `id,blob\n1,"${'x'.repeat(5000)}"\n`);
  // The header alone fits: a preview of no rows.
  const headerOnly = await buildTabularPreview({ sourcePath, workDir: join(dir, 'a'), maxBytes: 100, tabular: 'csv' });
  t.is(headerOnly.schema.rowCount, 0);
  t.true(headerOnly.schema.previewTruncated);
  const error = await t.throwsAsync(buildTabularPreview({ sourcePath, workDir: join(dir, 'b'), maxBytes: 5, tabular: 'csv' }), {
    instanceOf: TabularError,
  });
  t.is(error!.code, 'row_too_large');
  t.is(error!.message, 'The first row is longer than the preview limit of 5 bytes');
});

test('a 2 GB source is read only up to the limit', async (t) => {
  const dir = await scratchDir(t);
  const sourcePath = join(dir, 'huge.csv');
  const row = (i: number) => `${i},"value ${i}"\n`;
  const file = layout('id,value\n', row, 2 * LIMIT);
  await writeFile(sourcePath, file.bytes);
  // Sparse: the file claims 2 GB without using the disk; reading it whole would allocate 2 GB.
  await truncate(sourcePath, 2 * 1024 ** 3);
  t.is((await stat(sourcePath)).size, 2 * 1024 ** 3);
  const started = Date.now();
  const preview = await buildTabularPreview({ sourcePath, workDir: join(dir, 'work'), maxBytes: LIMIT, tabular: 'csv' });
  t.true(preview.schema.previewTruncated);
  t.is(preview.schema.rowCount, file.rowStarts.filter((start, i) => (file.rowStarts[i + 1] ?? Infinity) <= LIMIT).length);
  t.true(Date.now() - started < 30_000);
  t.true(process.resourceUsage().maxRSS < 1024 * 1024, `peak RSS ${process.resourceUsage().maxRSS} KB`);
});
