/**
 * Encodings and dialects give the right columns and values: Latin-1 / Windows-1252, UTF-16 LE and BE
 * (with BOM, and LE without), UTF-8 BOM, `;` `|` and tab, CR-only line endings, ragged rows.
 */
import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import test from 'ava';
import { buildTabularPreview, detectFormat, type TabularPreview } from '../../src/tabular/index.ts';
import { CSV_EDGE, previewRowsAsText, scratchDir } from './fixtures.ts';

async function previewOf(t: Parameters<typeof scratchDir>[0], sourcePath: string) {
  // As the pipeline does: the file name is the publisher's word for the format.
  const detected = await detectFormat(sourcePath, { filename: basename(sourcePath) });
  t.truthy(detected.tabular, `${sourcePath} detected as ${detected.format}`);
  const preview = await buildTabularPreview({ sourcePath, workDir: await scratchDir(t), tabular: detected.tabular ?? 'csv' });
  return { detected, preview, rows: await previewRowsAsText(preview.parquetPath) };
}

const shape = (preview: TabularPreview) => preview.schema.columns.map(({ name, type }) => `${name}:${type}`);

async function synthetic(t: Parameters<typeof scratchDir>[0], name: string, bytes: Buffer): Promise<string> {
  const path = join(await scratchDir(t), name);
  await writeFile(path, bytes);
  return path;
}

test('Latin-1 (csvkit test_latin1.csv) is transcoded: © survives', async (t) => {
  const { preview, rows } = await previewOf(t, join(CSV_EDGE, 'csvkit-examples/test_latin1.csv'));
  t.is(preview.encoding, 'windows-1252');
  t.deepEqual(shape(preview), ['a:integer', 'b:integer', 'c:string']);
  t.deepEqual(rows, [
    { a: '1', b: '2', c: '3' },
    { a: '4', b: '5', c: '©' },
  ]);
});

test('Windows-1252 bytes that Latin-1 lacks (€, curly quotes) decode as Windows-1252', async (t) => {
  const path = await synthetic(
    t,
    'cp1252.csv',
    Buffer.concat([
      Buffer.from('item;price\n'),
      Buffer.from([0x93, 0x63, 0x61, 0x66, 0xe9, 0x94]), // “café”
      Buffer.from(';3 '),
      Buffer.from([0x80]), // €
      Buffer.from('\n'),
    ]),
  );
  const { preview, rows } = await previewOf(t, path);
  t.is(preview.encoding, 'windows-1252');
  t.is(preview.dialect.delimiter, ';');
  t.deepEqual(rows, [{ item: '“café”', price: '3 €' }]);
});

for (const [file, encoding] of [
  ['csvkit-examples/test_utf16_little.csv', 'utf-16le'],
  ['csvkit-examples/test_utf16_big.csv', 'utf-16be'],
] as const) {
  test(`${encoding} with BOM (${file}) reads as the UTF-8 text it is`, async (t) => {
    const { preview, rows } = await previewOf(t, join(CSV_EDGE, file));
    t.is(preview.encoding, encoding);
    t.deepEqual(shape(preview), ['a:integer', 'b:integer', 'c:string']);
    t.deepEqual(rows, [
      { a: '1', b: '2', c: '3' },
      { a: '4', b: '5', c: 'ʤ' },
    ]);
  });
}

test('UTF-16 LE without BOM is recognised by its zero bytes', async (t) => {
  const path = await synthetic(t, 'utf16-nobom.csv', Buffer.from('id,name\r\n1,Zoë\r\n2,Łukasz\r\n', 'utf16le'));
  const { detected, preview, rows } = await previewOf(t, path);
  t.is(detected.format, 'CSV');
  t.is(preview.encoding, 'utf-16le');
  t.is(preview.dialect.newline, '\r\n');
  t.deepEqual(rows, [
    { id: '1', name: 'Zoë' },
    { id: '2', name: 'Łukasz' },
  ]);
});

test('a UTF-8 BOM is not part of the first column name (messytables utf-8 BOM, header only)', async (t) => {
  const { preview } = await previewOf(t, join(CSV_EDGE, 'messytables-horror/utf8bom.csv'));
  t.is(preview.encoding, 'utf-8');
  t.deepEqual(shape(preview), ['kitten:string', 'win:string']);
  t.is(preview.schema.rowCount, 0);
});

test('semicolons (csvkit sniff_limit.csv) are the delimiter', async (t) => {
  const { detected, preview, rows } = await previewOf(t, join(CSV_EDGE, 'csvkit-examples/sniff_limit.csv'));
  t.is(detected.format, 'CSV');
  t.is(preview.dialect.delimiter, ';');
  t.deepEqual(rows, [{ a: '1', b: '2', c: '3' }]);
});

test('semicolons with decimal commas: the comma stays inside the values', async (t) => {
  const path = await synthetic(t, 'eu.csv', Buffer.from('Gemeinde;Fläche\nBonn;141,06\nKöln;405,02\nAachen;160,85\n'));
  const { preview, rows } = await previewOf(t, path);
  t.is(preview.dialect.delimiter, ';');
  t.deepEqual(
    rows.map((row) => row['Fläche']),
    ['141,06', '405,02', '160,85'],
  );
});

test('pipes (messytables simple.psv, CRLF with a last LF line) are the delimiter', async (t) => {
  const { preview, rows } = await previewOf(t, join(CSV_EDGE, 'messytables-horror/simple.psv'));
  t.is(preview.dialect.delimiter, '|');
  t.is(preview.schema.rowCount, 28);
  t.deepEqual(rows[0], {
    Year: '1986',
    'New dwellings': '44000',
    'Other dwellings': '35000',
    'All dwellings': '36000',
    'First time buyers': '27000',
    'Former owner occupiers': '45000',
  });
  t.deepEqual(rows.at(-1), {
    Year: '2013',
    'New dwellings': '240000',
    'Other dwellings': '251000',
    'All dwellings': '251000',
    'First time buyers': '190000',
    'Former owner occupiers': '292000',
  });
});

test('tabs (csvkit dummy.tsv) are detected as TSV', async (t) => {
  const { detected, preview, rows } = await previewOf(t, join(CSV_EDGE, 'csvkit-examples/dummy.tsv'));
  t.deepEqual(detected, { format: 'TSV', mimetype: 'text/tab-separated-values', tabular: 'tsv' });
  t.is(preview.dialect.delimiter, '\t');
  t.deepEqual(rows, [{ a: '1', b: '2', c: '3' }]);
});

test('CR-only line endings (csvkit mac_newlines.csv) are read as-is, CR inside quotes kept', async (t) => {
  const { preview, rows } = await previewOf(t, join(CSV_EDGE, 'csvkit-examples/mac_newlines.csv'));
  t.is(preview.dialect.newline, '\r');
  t.deepEqual(rows, [
    { a: '1', b: '2', c: '3' },
    { a: 'Once upon\ra time', b: '5', c: '6' },
  ]);
});

test('CR-only line endings on a larger file (messytables mixedGLB.csv) give every row', async (t) => {
  const { preview, rows } = await previewOf(t, join(CSV_EDGE, 'messytables-horror/mixedGLB.csv'));
  t.is(preview.dialect.newline, '\r');
  t.is(preview.schema.columns.length, 19);
  t.is(preview.schema.rowCount, 136);
  t.true(rows.some((row) => Object.values(row)[0] === '1880' && row.column01 === '-43'));
});

test('ragged rows (csvkit bad.csv) are padded with NULL instead of collapsing into one column', async (t) => {
  const { preview, rows } = await previewOf(t, join(CSV_EDGE, 'csvkit-examples/bad.csv'));
  t.deepEqual(shape(preview), ['column_a:integer', 'column_b:string', 'column_c:integer', 'column3:string']);
  t.deepEqual(rows, [
    { column_a: '1', column_b: '27', column_c: null, column3: "I'm too long!" },
    { column_a: null, column_b: "I'm too short!", column_c: null, column3: null },
    { column_a: '0', column_b: 'mixed types.... uh oh', column_c: '17', column3: null },
  ]);
  t.deepEqual(
    preview.schema.columns.map((column) => column.nullCount),
    [1, 0, 2, 2],
  );
});

test('Windows-1252 with CR inside quoted CRLF rows (messytables spanish_chars.csv)', async (t) => {
  const { preview, rows } = await previewOf(t, join(CSV_EDGE, 'messytables-horror/spanish_chars.csv'));
  t.is(preview.encoding, 'windows-1252');
  t.is(preview.schema.columns.at(-1)!.name, 'Descripción');
  t.is(preview.schema.rowCount, 116);
  t.regex(rows[0]!['Descripción']!, /^ Comprende las acciones propias de la gestión/);
});

test('UTF-16 LE with BOM and CRLF (messytables utf-16le_encoded.csv)', async (t) => {
  const { preview, rows } = await previewOf(t, join(CSV_EDGE, 'messytables-horror/utf-16le_encoded.csv'));
  t.is(preview.encoding, 'utf-16le');
  t.is(preview.schema.rowCount, 327);
  t.like(rows[0], { Organisation_code: '5C1', Organisation_name: 'Enfield PCT', Reporting_period: '2010-11' });
});

test('a file without header row gets DuckDB names (csvkit no_header_row3.csv)', async (t) => {
  const { preview, rows } = await previewOf(t, join(CSV_EDGE, 'csvkit-examples/no_header_row3.csv'));
  t.false(preview.dialect.header);
  t.deepEqual(rows, [
    { column0: '1', column1: '2', column2: '3' },
    { column0: '4', column1: '5', column2: '6' },
  ]);
});

test('a NUL byte inside a field is dropped (csvkit null_byte.csv)', async (t) => {
  const { preview, rows } = await previewOf(t, join(CSV_EDGE, 'csvkit-examples/null_byte.csv'));
  t.deepEqual(shape(preview), ['a:string', 'b:integer', 'c:integer']);
  t.deepEqual(rows, [{ a: null, b: '2', c: '3' }]);
});
