/** The contents text: header and first rows of a preview as plain, bounded UTF-8. */
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { buildTabularPreview, DEFAULT_TEXT_MAX_BYTES, extractText } from '../../src/tabular/index.ts';
import { CSV_EDGE, scratchDir } from './fixtures.ts';

/** The preview of one of the CSV edge cases, built in a scratch directory of its own. */
async function edgeCasePreview(t: ExecutionContext, file: string) {
  const dir = await scratchDir(t);
  const preview = await buildTabularPreview({ sourcePath: join(CSV_EDGE, file), workDir: dir, tabular: 'csv' });
  return { dir, preview };
}

test('header then one line per row, cells tab-separated, whitespace in cells collapsed', async (t) => {
  const { dir, preview } = await edgeCasePreview(t, 'csv-spectrum/csvs/quotes_and_newlines.csv');
  t.is(await extractText({ parquetPath: preview.parquetPath }), 'a\tb\n1\tha "ha" ha\n3\t4');
  // Neither step leaves scratch files next to the preview.
  t.deepEqual(await readdir(dir), ['preview.parquet']);
});

test('empty cells keep their place so columns stay aligned', async (t) => {
  const { preview } = await edgeCasePreview(t, 'csv-spectrum/csvs/empty.csv');
  t.is(await extractText({ parquetPath: preview.parquetPath }), 'a\tb\tc\n1\t\t\n2\t3\t4');
});

test('generated column names can be left out', async (t) => {
  const { preview } = await edgeCasePreview(t, 'csvkit-examples/no_header_row3.csv');
  t.false(preview.dialect.header);
  t.is(await extractText({ parquetPath: preview.parquetPath, includeHeader: preview.dialect.header }), '1\t2\t3\n4\t5\t6');
});

test('the text stops at 64 KB, on a character boundary, and at maxRows', async (t) => {
  const dir = await scratchDir(t);
  const rows = Array.from({ length: 20_000 }, (_, i) => `${i},"ééé ${'€'.repeat(i % 7)}"`);
  await writeFile(join(dir, 'long.csv'), `id,text\n${rows.join('\n')}\n`);
  const preview = await buildTabularPreview({ sourcePath: join(dir, 'long.csv'), workDir: join(dir, 'work'), tabular: 'csv' });
  const text = await extractText({ parquetPath: preview.parquetPath, maxRows: 100_000 });
  const bytes = Buffer.byteLength(text);
  t.true(bytes <= DEFAULT_TEXT_MAX_BYTES && bytes > DEFAULT_TEXT_MAX_BYTES - 4, `${bytes} bytes`);
  t.false(text.includes('\uFFFD'));
  t.true(text.startsWith('id\ttext\n0\tééé\n1\tééé €\n'));
  const few = await extractText({ parquetPath: preview.parquetPath, maxRows: 2 });
  t.is(few, 'id\ttext\n0\tééé\n1\tééé €');
});
