/**
 * Every file of the csv-edge corpus goes through detection and preview and ends in exactly one of two
 * ways: a preview whose shape is pinned here, or a TabularError with a stable code. Anything else (another
 * exception, a hang past ava's timeout) fails. The expectations were decided file by file against
 * PROPERTIES.tsv; where DuckDB's reading of a malformed file is debatable, the note says why it is kept.
 */
import { readdir } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import test from 'ava';
import {
  buildTabularPreview,
  DEFAULT_TEXT_MAX_BYTES,
  detectFormat,
  extractText,
  TabularError,
  type TabularErrorCode,
  type TextEncoding,
} from '../../src/tabular/index.ts';
import { CSV_EDGE, previewRowsAsText, query, scratchDir, sqlString } from './fixtures.ts';

interface Previewed {
  format: string;
  columns: number;
  rows: number;
  encoding: TextEncoding;
  first: string;
  note?: string;
}

interface Refused {
  format: string | null;
  error: TabularErrorCode;
  message: RegExp;
  note: string;
}

/** Text the pipeline keeps as text: not declared a table, and no confident sniff of one (issue 16, gap 7). */
interface PlainText {
  format: 'TXT';
  plainText: true;
  note: string;
}

const PLAIN_TEXT = (note: string): PlainText => ({ format: 'TXT', plainText: true, note });

const PREVIEWED = (
  format: string,
  columns: number,
  rows: number,
  first: string,
  note?: string,
  encoding: TextEncoding = 'utf-8',
): Previewed => ({ format, columns, rows, first, note, encoding });

const EMPTY = /^The file is empty$/;
const JSON_REFUSED: Refused = {
  format: 'JSON',
  error: 'not_tabular',
  message: /^The file is JSON, not CSV or TSV text$/,
  note: 'csv-spectrum expectation, detected as JSON',
};

const EXPECTED: Record<string, Previewed | Refused | PlainText> = {
  'PROPERTIES.tsv': PREVIEWED('TSV', 10, 98, 'file', 'the corpus index is itself a TSV'),
  'commons-csv/CSV-141/csv-141.csv': PREVIEWED(
    'CSV',
    5,
    3,
    '"1414770317901"',
    'a backslash before a closing quote defeats quoting: DuckDB reads it unquoted, ragged rows padded',
  ),
  'commons-csv/CSV-196/emoji.csv': PREVIEWED('CSV', 16, 4, 'id'),
  'commons-csv/CSV-196/japanese.csv': PREVIEWED('CSV', 17, 3, 'id'),
  'commons-csv/CSV-254/csv-254.csv': PREVIEWED('CSV', 3, 3, 'column0', 'no header row'),
  'commons-csv/CSV-259/sample.txt': PLAIN_TEXT('a .txt holding one comma-separated line: no table without more records'),
  'commons-csv/CSV-290/psql.csv': PREVIEWED('CSV', 5, 3, 'column0', 'quoted CR and LF inside fields'),
  'commons-csv/CSV-290/psql.tsv': PREVIEWED('TSV', 5, 3, 'column0'),
  'commons-csv/CSVFileParser/bom.csv': PREVIEWED('CSV', 6, 251, 'Date', 'UTF-8 BOM'),
  'commons-csv/CSVFileParser/test.csv': PREVIEWED('CSV', 4, 5, 'A', 'comment lines and blank lines'),
  'commons-csv/CSVFileParser/testCSV246.csv': PREVIEWED('CSV', 5, 2, 'a'),
  'commons-csv/CSVFileParser/testCSV246_checkWithNoComment.txt': PLAIN_TEXT('a test description that happens to be comma-separated'),
  'commons-csv/CSVFileParser/testCSV85.csv': PREVIEWED('CSV', 5, 2, 'a'),
  'commons-csv/CSVFileParser/testCSV85_default.txt': PLAIN_TEXT('a parser test description: lines of varying comma counts'),
  'commons-csv/CSVFileParser/testCSV85_ignoreEmpty.txt': PLAIN_TEXT('a parser test description: lines of varying comma counts'),
  'commons-csv/CSVFileParser/test_default.txt': PLAIN_TEXT('a parser test description: lines of varying comma counts'),
  'commons-csv/CSVFileParser/test_default_comment.txt': PLAIN_TEXT('a parser test description: lines of varying comma counts'),
  'commons-csv/CSVFileParser/test_rfc4180.txt': PLAIN_TEXT('a parser test description: lines of varying comma counts'),
  'commons-csv/CSVFileParser/test_rfc4180_trim.txt': PLAIN_TEXT('a parser test description: lines of varying comma counts'),
  'commons-csv/csv-167/sample1.csv': PREVIEWED('CSV', 3, 3, 'author', '# comment lines skipped by DuckDB'),
  'commons-csv/empty.txt': { format: 'TXT', error: 'empty_file', message: EMPTY, note: '0 bytes' },
  'csv-spectrum/csvs/comma_in_quotes.csv': PREVIEWED('CSV', 5, 1, 'first'),
  'csv-spectrum/csvs/empty.csv': PREVIEWED('CSV', 3, 2, 'a'),
  'csv-spectrum/csvs/empty_crlf.csv': PREVIEWED('CSV', 3, 2, 'a'),
  'csv-spectrum/csvs/escaped_quotes.csv': PREVIEWED('CSV', 2, 2, 'a'),
  'csv-spectrum/csvs/json.csv': PREVIEWED('CSV', 2, 1, 'key'),
  'csv-spectrum/csvs/location_coordinates.csv': PREVIEWED('CSV', 4, 1, 'Contact Phone Number'),
  'csv-spectrum/csvs/newlines.csv': PREVIEWED('CSV', 3, 3, 'a'),
  'csv-spectrum/csvs/newlines_crlf.csv': PREVIEWED('CSV', 3, 3, 'a'),
  'csv-spectrum/csvs/quotes_and_newlines.csv': PREVIEWED('CSV', 2, 2, 'a'),
  'csv-spectrum/csvs/simple.csv': PREVIEWED('CSV', 3, 1, 'a'),
  'csv-spectrum/csvs/simple_crlf.csv': PREVIEWED('CSV', 3, 1, 'a'),
  'csv-spectrum/csvs/utf8.csv': PREVIEWED('CSV', 3, 2, 'a'),
  'csv-spectrum/json/comma_in_quotes.json': JSON_REFUSED,
  'csv-spectrum/json/empty.json': JSON_REFUSED,
  'csv-spectrum/json/empty_crlf.json': JSON_REFUSED,
  'csv-spectrum/json/escaped_quotes.json': JSON_REFUSED,
  'csv-spectrum/json/json.json': JSON_REFUSED,
  'csv-spectrum/json/location_coordinates.json': JSON_REFUSED,
  'csv-spectrum/json/newlines.json': JSON_REFUSED,
  'csv-spectrum/json/newlines_crlf.json': JSON_REFUSED,
  'csv-spectrum/json/quotes_and_newlines.json': JSON_REFUSED,
  'csv-spectrum/json/simple.json': JSON_REFUSED,
  'csv-spectrum/json/simple_crlf.json': JSON_REFUSED,
  'csv-spectrum/json/utf8.json': JSON_REFUSED,
  'csvkit-examples/bad.csv': PREVIEWED('CSV', 4, 3, 'column_a', 'ragged rows padded with NULL, the extra field gets column3'),
  'csvkit-examples/bad_skip_lines.csv': PREVIEWED('CSV', 4, 4, 'column_a', 'ragged rows padded with NULL'),
  'csvkit-examples/blanks.csv': PREVIEWED('CSV', 6, 1, 'a'),
  'csvkit-examples/blanks_converted.csv': PREVIEWED('CSV', 6, 1, 'a'),
  'csvkit-examples/date_like_number.csv': PREVIEWED('CSV', 1, 1, 'a'),
  'csvkit-examples/dummy.csv': PREVIEWED('CSV', 3, 1, 'a'),
  'csvkit-examples/dummy.csv.bz2': {
    format: 'BZIP2',
    error: 'not_tabular',
    message: /^The file is BZIP2-compressed; compressed CSV is not previewed/,
    note: 'compressed CSV is reported as BZIP2, never decompressed',
  },
  'csvkit-examples/dummy.csv.gz': {
    format: 'GZIP',
    error: 'not_tabular',
    message: /^The file is GZIP-compressed; compressed CSV is not previewed/,
    note: 'compressed CSV is reported as GZIP, never decompressed',
  },
  'csvkit-examples/dummy.tsv': PREVIEWED('TSV', 3, 1, 'a'),
  'csvkit-examples/dummy2.csv': PREVIEWED('CSV', 3, 1, 'a'),
  'csvkit-examples/dummy3.csv': PREVIEWED('CSV', 3, 2, 'a'),
  'csvkit-examples/dummy_col_shuffled.csv': PREVIEWED('CSV', 3, 1, 'b'),
  'csvkit-examples/dummy_col_shuffled_ragged.csv': PREVIEWED('CSV', 4, 1, 'b'),
  'csvkit-examples/empty.csv': { format: 'CSV', error: 'empty_file', message: EMPTY, note: 'a lone line break is no data' },
  'csvkit-examples/foo1.csv': PREVIEWED('CSV', 3, 2, 'id'),
  'csvkit-examples/foo2.csv': PREVIEWED('CSV', 3, 2, 'id'),
  'csvkit-examples/iris.csv': PREVIEWED('CSV', 5, 150, 'sepal_length'),
  'csvkit-examples/irismeta.csv': PREVIEWED('CSV', 3, 3, 'species'),
  'csvkit-examples/join_a.csv': PREVIEWED('CSV', 3, 3, 'a'),
  'csvkit-examples/join_a_short.csv': PREVIEWED('CSV', 3, 3, 'a', 'short rows padded with NULL'),
  'csvkit-examples/join_b.csv': PREVIEWED('CSV', 3, 3, 'a'),
  'csvkit-examples/join_no_header_row.csv': PREVIEWED('CSV', 3, 3, 'd', 'DuckDB takes the letters of the first row for a header'),
  'csvkit-examples/join_short.csv': PREVIEWED('CSV', 5, 2, 'a'),
  'csvkit-examples/mac_newlines.csv': PREVIEWED('CSV', 3, 2, 'a', 'CR-only line endings, read as-is'),
  'csvkit-examples/no_header_row.csv': PREVIEWED('CSV', 3, 1, 'column0', 'no header row'),
  'csvkit-examples/no_header_row2.csv': PREVIEWED('CSV', 3, 1, 'column0', 'no header row'),
  'csvkit-examples/no_header_row3.csv': PREVIEWED('CSV', 3, 2, 'column0', 'no header row'),
  'csvkit-examples/null_byte.csv': PREVIEWED('CSV', 3, 1, 'a', 'the NUL byte is dropped'),
  'csvkit-examples/optional_quote_characters.csv': PREVIEWED('CSV', 3, 1, 'a'),
  'csvkit-examples/sniff_limit.csv': PREVIEWED('CSV', 3, 1, 'a', 'semicolon-delimited'),
  'csvkit-examples/sort_ints_nulls.csv': PREVIEWED('CSV', 3, 3, 'a'),
  'csvkit-examples/test_date_format.csv': PREVIEWED('CSV', 1, 2, 'a'),
  'csvkit-examples/test_date_format_converted.csv': PREVIEWED('CSV', 1, 2, 'a'),
  'csvkit-examples/test_empty_columns.csv': PREVIEWED('CSV', 5, 3, 'a', 'blank header cells get DuckDB names'),
  'csvkit-examples/test_empty_columns_long_row.csv': PREVIEWED('CSV', 3, 1, 'a'),
  'csvkit-examples/test_empty_columns_short_row.csv': PREVIEWED('CSV', 3, 1, 'a', 'short row padded with NULL'),
  'csvkit-examples/test_extra_header.csv': PREVIEWED('CSV', 4, 1, 'a', 'header longer than the rows'),
  'csvkit-examples/test_geo.csv': PREVIEWED('CSV', 12, 17, 'slug'),
  'csvkit-examples/test_geojson.csv': PREVIEWED('CSV', 7, 3, 'id'),
  'csvkit-examples/test_header_newline.csv': PREVIEWED(
    'CSV',
    3,
    1,
    '\t\n\u000b\f\r start \t\n\u000b\f\r end \t\n\u000b\f\r',
    'a quoted header cell made of whitespace and line breaks',
  ),
  'csvkit-examples/test_ignore_case.csv': PREVIEWED('CSV', 3, 5, 'a'),
  'csvkit-examples/test_join_short_rows.csv': PREVIEWED('CSV', 3, 3, 'a', 'short rows padded with NULL'),
  'csvkit-examples/test_latin1.csv': PREVIEWED('CSV', 3, 2, 'a', 'Latin-1 transcoded', 'windows-1252'),
  'csvkit-examples/test_literal_order.csv': PREVIEWED('CSV', 2, 3, 'a'),
  'csvkit-examples/test_locale.csv': PREVIEWED('CSV', 3, 1, 'a'),
  'csvkit-examples/test_locale_converted.csv': PREVIEWED('CSV', 3, 1, 'a'),
  'csvkit-examples/test_no_leading_zeroes.csv': PREVIEWED('CSV', 3, 1, 'a'),
  'csvkit-examples/test_numeric_date_format.csv': PREVIEWED('CSV', 1, 2, 'a'),
  'csvkit-examples/test_precision.csv': PREVIEWED('CSV', 1, 1, 'a'),
  'csvkit-examples/test_skip_lines.csv': PREVIEWED('CSV', 3, 1, 'a', 'leading blank lines skipped'),
  'csvkit-examples/test_utf16_big.csv': PREVIEWED('CSV', 3, 2, 'a', 'UTF-16 BE with BOM', 'utf-16be'),
  'csvkit-examples/test_utf16_little.csv': PREVIEWED('CSV', 3, 2, 'a', 'UTF-16 LE with BOM', 'utf-16le'),
  'csvkit-examples/test_utf8.csv': PREVIEWED('CSV', 3, 2, 'foo'),
  'csvkit-examples/test_utf8_bom.csv': PREVIEWED('CSV', 3, 2, 'foo', 'UTF-8 BOM'),
  'messytables-horror/begrotingsanalyse-2011.csv': PREVIEWED(
    'CSV',
    20,
    43,
    'column00',
    'a spreadsheet export whose first rows are titles: DuckDB sees no header',
  ),
  'messytables-horror/characters.csv': PREVIEWED(
    'CSV',
    18,
    382,
    'id',
    'Big5 text: not UTF-8, so read as Windows-1252 (mojibake, a documented limit)',
    'windows-1252',
  ),
  'messytables-horror/complex.csv': PREVIEWED('CSV', 4, 3, 'date'),
  'messytables-horror/example.tsv': PREVIEWED('TSV', 17, 140, 'hour'),
  'messytables-horror/excel_pasting.csv': PREVIEWED(
    'CSV',
    9,
    20,
    'CO2 emissions by different sub-groups in manufacturing sector, 2000 to 2007',
    'title row taken as header, as DuckDB does',
  ),
  'messytables-horror/long.csv': PREVIEWED('CSV', 1, 3999, 'foo', 'a single column'),
  'messytables-horror/mixedGLB.csv': PREVIEWED(
    'CSV',
    19,
    136,
    'Combined Land--Ocean Temperature Anomaly (C) CR 1200km 1880 to 2012.',
    'CR-only line endings under a title row',
  ),
  'messytables-horror/null.csv': PREVIEWED('CSV', 4, 10, 'column0'),
  'messytables-horror/simple.csv': PREVIEWED('CSV', 3, 6, 'date'),
  'messytables-horror/simple.psv': PREVIEWED('CSV', 6, 28, 'Year', 'pipe-delimited, CRLF with a final LF: read in non-strict mode'),
  'messytables-horror/simple.ssv': PREVIEWED('CSV', 3, 6, 'date', 'semicolon-delimited'),
  'messytables-horror/simple.unknown': {
    format: 'UNKNOWN',
    error: 'empty_file',
    message: EMPTY,
    note: '0 bytes, format named by its extension',
  },
  'messytables-horror/skip_initials.csv': PREVIEWED('CSV', 2, 2, 'field1'),
  'messytables-horror/small.csv': PREVIEWED('CSV', 1, 0, 'a', 'one byte: a header and no rows'),
  'messytables-horror/spanish_chars.csv': PREVIEWED('CSV', 8, 116, 'GF_ID', 'Windows-1252 with CRLF and CR inside quotes', 'windows-1252'),
  'messytables-horror/sparse_with_column_errors.csv': PREVIEWED('CSV', 4, 2237, 'LP', 'Windows-1252', 'windows-1252'),
  'messytables-horror/utf-16le_encoded.csv': PREVIEWED('CSV', 19, 327, 'Organisation_code', 'UTF-16 LE with BOM, CRLF', 'utf-16le'),
  'messytables-horror/utf8bom.csv': PREVIEWED('CSV', 2, 0, 'kitten', 'BOM and a header without line break'),
  'messytables-horror/weird_head_padding.csv': PREVIEWED(
    'CSV',
    11,
    86,
    'column00',
    'title lines above a ragged semicolon table: padded, no header',
  ),
};

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

const files = (await readdir(CSV_EDGE, { recursive: true, withFileTypes: true }))
  .filter((entry) => entry.isFile())
  .map((entry) => relative(CSV_EDGE, join(entry.parentPath, entry.name)))
  .sort();

test('the expectations cover exactly the files of the corpus', (t) => {
  t.deepEqual(Object.keys(EXPECTED).sort(), files);
});

for (const file of files) {
  const expected = EXPECTED[file];
  if (!expected) continue;
  if ('plainText' in expected) {
    test(`csv-edge/${file}: kept as text, never a table (${expected.note})`, async (t) => {
      const detected = await detectFormat(join(CSV_EDGE, file), { filename: basename(file) });
      t.like(detected, { format: 'TXT', tabular: null });
    });
    continue;
  }
  const title =
    'error' in expected
      ? `csv-edge/${file}: refused with TabularError ${expected.error} (${expected.note})`
      : `csv-edge/${file}: previewed as ${count(expected.columns, 'column')} × ${count(expected.rows, 'row')}` +
        (expected.note ? ` (${expected.note})` : '');
  test(title, async (t) => {
    const path = join(CSV_EDGE, file);
    const workDir = await scratchDir(t);
    const detected = await detectFormat(path, { filename: basename(file) });
    t.is(detected.format, expected.format);
    let preview;
    try {
      preview = await buildTabularPreview({ sourcePath: path, workDir, tabular: detected.tabular ?? 'csv' });
    } catch (error) {
      t.true(error instanceof TabularError, `not a TabularError: ${String(error)}`);
      if (!('error' in expected)) return t.fail(`expected a preview, got: ${(error as Error).message}`);
      t.is((error as TabularError).code, expected.error);
      t.regex((error as Error).message, expected.message);
      return;
    }
    if ('error' in expected) return t.fail(`expected ${expected.error}, got a preview`);
    t.is(detected.tabular, expected.format === 'TSV' ? 'tsv' : 'csv');
    t.is(preview.encoding, expected.encoding);
    t.is(preview.schema.columns.length, expected.columns);
    t.is(preview.schema.rowCount, expected.rows);
    t.is(preview.schema.columns[0]!.name, expected.first);
    t.false(preview.schema.previewTruncated);
    // The schema is stored as JSON: no bigint, NaN or undefined may hide in it.
    t.deepEqual(JSON.parse(JSON.stringify(preview.schema)), preview.schema);
    // And it describes the Parquet that was written, not some earlier reading.
    const [counts] = await query(
      `SELECT count(*) AS n, ${preview.schema.columns.map((_, i) => `count(#${i + 1}) AS c${i}`).join(', ')} ` +
        `FROM read_parquet(${sqlString(preview.parquetPath)})`,
    );
    t.is(Number(counts!.n), preview.schema.rowCount);
    preview.schema.columns.forEach((column, i) => {
      t.is(column.nullCount, preview.schema.rowCount - Number(counts![`c${i}`]), column.name);
      t.is(column.nullable, column.nullCount > 0);
    });
    t.is((await previewRowsAsText(preview.parquetPath)).length, expected.rows);
    // Whatever the preview holds, its contents text is bounded and free of control characters.
    const text = await extractText({ parquetPath: preview.parquetPath, includeHeader: preview.dialect.header });
    t.true(Buffer.byteLength(text) <= DEFAULT_TEXT_MAX_BYTES);
    // eslint-disable-next-line no-control-regex -- the extract must carry no control characters
    t.notRegex(text, /[\u0000-\u0008\u000b-\u001f\u007f]/);
  });
}
