/**
 * detectFormat decides from the bytes; the file name, declared format and mimetype only break ties.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import test from 'ava';
import { detectFormat } from '../../src/tabular/index.ts';
import { CSV_EDGE, query, scratchDir, sqlString } from './fixtures.ts';

async function detect(t: Parameters<typeof scratchDir>[0], bytes: Buffer | string, hints: Parameters<typeof detectFormat>[1] = {}) {
  const path = join(await scratchDir(t), 'upload');
  await writeFile(path, bytes);
  return detectFormat(path, hints);
}

/** A zip holding empty stored entries with these names: enough for what detection reads. */
function zipWith(...names: string[]): Buffer {
  return Buffer.concat(
    names.map((name) => {
      const header = Buffer.alloc(30);
      header.writeUInt32LE(0x04034b50, 0);
      header.writeUInt16LE(20, 4);
      header.writeUInt16LE(Buffer.byteLength(name), 26);
      return Buffer.concat([header, Buffer.from(name)]);
    }),
  );
}

test('Parquet by its PAR1 magic, whatever the name says', async (t) => {
  const dir = await scratchDir(t);
  const path = join(dir, 'data.csv');
  await query(`COPY (SELECT 1 AS a) TO ${sqlString(path)} (FORMAT parquet)`);
  t.deepEqual(await detectFormat(path, { filename: 'data.csv', declaredFormat: 'CSV' }), {
    format: 'PARQUET',
    mimetype: 'application/vnd.apache.parquet',
    tabular: null,
  });
});

test('zip containers are told apart by their entries, then by the hint', async (t) => {
  t.like(await detect(t, zipWith('[Content_Types].xml', '_rels/.rels', 'xl/workbook.xml')), { format: 'XLSX', tabular: null });
  t.like(await detect(t, zipWith('[Content_Types].xml', 'word/document.xml')), { format: 'DOCX' });
  t.like(await detect(t, zipWith('shapes/roads.shp', 'shapes/roads.dbf')), { format: 'ZIP', mimetype: 'application/zip' });
  t.like(await detect(t, zipWith('[Content_Types].xml'), { filename: 'budget.xlsx' }), { format: 'XLSX' });
  t.like(await detect(t, zipWith('[Content_Types].xml'), { filename: 'budget.csv' }), { format: 'ZIP' });
});

test('compressed CSV is reported as its compression, not as tabular', async (t) => {
  t.deepEqual(await detect(t, gzipSync('a,b\n1,2\n'), { filename: 'x.csv.gz' }), {
    format: 'GZIP',
    mimetype: 'application/gzip',
    tabular: null,
  });
  t.deepEqual(await detectFormat(join(CSV_EDGE, 'csvkit-examples/dummy.csv.bz2'), { filename: 'dummy.csv.bz2' }), {
    format: 'BZIP2',
    mimetype: 'application/x-bzip2',
    tabular: null,
  });
});

test('a file declared CSV that is a PDF is a PDF', async (t) => {
  t.deepEqual(
    await detect(t, '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n', { filename: 'table.csv', declaredFormat: 'CSV', mimetype: 'text/csv' }),
    {
      format: 'PDF',
      mimetype: 'application/pdf',
      tabular: null,
    },
  );
});

test('images by their signatures', async (t) => {
  t.like(await detect(t, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])), {
    format: 'PNG',
    mimetype: 'image/png',
  });
  t.like(await detect(t, Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46])), { format: 'JPEG', mimetype: 'image/jpeg' });
  t.like(await detect(t, Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1')), { format: 'GIF', mimetype: 'image/gif' });
});

test('JSON after a BOM and blank lines; GeoJSON by its type; JSON lines', async (t) => {
  t.like(await detect(t, '\uFEFF\n  [{"a": 1}]'), { format: 'JSON', mimetype: 'application/json', tabular: null });
  t.like(await detect(t, '{"type": "FeatureCollection", "features": []}', { filename: 'x.json' }), {
    format: 'GEOJSON',
    mimetype: 'application/geo+json',
  });
  t.like(await detect(t, '{"a": 1}\n{"a": 2}\n'), { format: 'JSONL' });
});

test('a header that merely starts with a bracket is still CSV', async (t) => {
  t.like(await detect(t, '[id],[name]\n1,a\n2,b\n'), { format: 'CSV', tabular: 'csv' });
});

test('XML, HTML and XML dialects by their root element', async (t) => {
  t.like(await detect(t, '<?xml version="1.0"?>\n<!-- x -->\n<catalog><item/></catalog>'), { format: 'XML', mimetype: 'application/xml' });
  t.like(await detect(t, '<!DOCTYPE html>\n<html><body>404</body></html>', { filename: 'data.csv' }), { format: 'HTML', tabular: null });
  t.like(await detect(t, '<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2"></kml>'), { format: 'KML' });
  t.like(await detect(t, '<?xml version="1.0"?><gml:FeatureCollection/>', { filename: 'roads.gml' }), {
    format: 'GML',
    mimetype: 'application/xml',
  });
});

test('a .txt that is clearly comma-separated is CSV; tab-separated is TSV whatever it is called', async (t) => {
  t.deepEqual(await detect(t, 'name,age\nann,3\nbob,4\n', { filename: 'people.txt' }), {
    format: 'CSV',
    mimetype: 'text/csv',
    tabular: 'csv',
  });
  t.like(await detect(t, 'name\tage\nann\t3\n', { filename: 'people.csv', declaredFormat: 'CSV' }), { format: 'TSV', tabular: 'tsv' });
  t.like(await detect(t, 'a;b;c\n1;2,5;3\n4;5,5;6\n'), { format: 'CSV', tabular: 'csv' });
});

test('text without a delimiter: the hint decides between a one-column CSV and plain text', async (t) => {
  const oneColumn = 'city\nBonn\nKöln\n';
  t.like(await detect(t, oneColumn, { filename: 'cities.csv' }), { format: 'CSV', tabular: 'csv' });
  t.like(await detect(t, oneColumn, { mimetype: 'text/csv; charset=utf-8' }), { format: 'CSV', tabular: 'csv' });
  t.like(await detect(t, oneColumn, { declaredFormat: 'text/tab-separated-values' }), { format: 'TSV', tabular: 'tsv' });
  t.deepEqual(await detect(t, oneColumn), { format: 'TXT', mimetype: 'text/plain', tabular: null });
  t.like(await detect(t, '# Title\n\nSome prose here.\n', { filename: 'README.md' }), {
    format: 'MD',
    mimetype: 'text/plain',
    tabular: null,
  });
});

test('prose with a comma or two a line is text, not a table, unless the publisher declared it CSV', async (t) => {
  const prose =
    'It was a bright cold day in April, and the clocks were striking thirteen.\n' +
    'Winston Smith, his chin nuzzled into his breast in an effort to escape the vile wind, slipped through the doors.\n' +
    'The hallway smelt of boiled cabbage and old rag mats, and a poster was tacked to the wall.\n' +
    'It depicted simply an enormous face, more than a metre wide, the face of a man of about forty-five.\n';
  t.deepEqual(await detect(t, prose, { filename: 'chapter.txt', declaredFormat: 'TXT' }), {
    format: 'TXT',
    mimetype: 'text/plain',
    tabular: null,
  });
  t.like(await detect(t, prose), { format: 'TXT', tabular: null });
  t.like(await detect(t, prose, { filename: 'notes.md' }), { format: 'MD', tabular: null });
  t.like(await detect(t, prose, { declaredFormat: 'CSV' }), { format: 'CSV', tabular: 'csv' });
  // Rows with long text cells stay a table when the other cells are short.
  const table =
    'id,title,summary\n1,Budget,The annual budget of the city council as adopted in March\n2,Roads,Every road the city maintains with its surface\n';
  t.like(await detect(t, table, { filename: 'items.txt' }), { format: 'CSV', tabular: 'csv' });
});

test('UTF-16 and Windows-1252 text is sniffed like any text', async (t) => {
  t.like(await detect(t, Buffer.from('\uFEFFa\tb\n1\t2\n', 'utf16le')), { format: 'TSV', tabular: 'tsv' });
  t.like(await detect(t, Buffer.from('name,city\nJosé,Málaga\n', 'latin1')), { format: 'CSV', tabular: 'csv' });
});

test('binary data without a known signature is octet-stream; an unverifiable hint names it', async (t) => {
  const noise = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256));
  t.deepEqual(await detect(t, noise, { filename: 'data.csv', declaredFormat: 'CSV' }), {
    format: null,
    mimetype: 'application/octet-stream',
    tabular: null,
  });
  t.deepEqual(await detect(t, noise, { filename: 'roads.shp' }), {
    format: 'SHP',
    mimetype: 'application/octet-stream',
    tabular: null,
  });
});

test('a stray NUL does not make a CSV binary (csvkit null_byte.csv)', async (t) => {
  t.like(await detectFormat(join(CSV_EDGE, 'csvkit-examples/null_byte.csv'), {}), { format: 'CSV', tabular: 'csv' });
});

test('an empty upload keeps its declared format so the preview can say it is empty', async (t) => {
  t.deepEqual(await detect(t, '', { filename: 'x.csv' }), { format: 'CSV', mimetype: 'text/csv', tabular: 'csv' });
  t.deepEqual(await detect(t, '\n\n'), { format: null, mimetype: 'application/octet-stream', tabular: null });
});
