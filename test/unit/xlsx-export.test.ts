import test from 'ava';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { DuckDBInstance, type DuckDBBlobVector, type DuckDBConnection } from '@duckdb/node-api';
import { blobColumnBytes } from '../../src/query/blob-column.ts';
import { xlsxHeaderRow, xlsxRowSelect, type ExportColumn } from '../../src/query/export-sql.ts';
import { writeXlsx } from '../../src/query/xlsx-package.ts';

/**
 * The XLSX export's parts without the server: DuckDB renders the rows (export-sql.ts), this process reads
 * them out of DuckDB in runs (blob-column.ts) and zips them (xlsx-package.ts, zip-stream.ts); openpyxl
 * and Python's zipfile read the file back.
 */

// One connection, so the tests run one at a time.
let connection: DuckDBConnection;
let dir: string;
test.before(async () => {
  connection = await (await DuckDBInstance.create(':memory:', { threads: '2' })).connect();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'xlsx-export-'));
});
test.after.always(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

const run = promisify(execFile);

/** The sheet's cells as openpyxl reads them, and the sheet's XML as stored, after Python's zipfile has checked every CRC. */
const READER = String.raw`
import json, sys, zipfile, openpyxl
with zipfile.ZipFile(sys.argv[1]) as z:
    assert z.testzip() is None
    xml = z.read('xl/worksheets/sheet1.xml').decode('utf-8')
rows = [list(r) for r in openpyxl.load_workbook(sys.argv[1], read_only=True).active.iter_rows(values_only=True)]
print(json.dumps({'rows': rows, 'xml': xml}))
`;

async function exportXlsx(sql: string): Promise<{ rows: unknown[][]; xml: string }> {
  await connection.run(`CREATE OR REPLACE TABLE source AS ${sql}`);
  const described = await connection.runAndReadAll('DESCRIBE SELECT * FROM source');
  const columns: ExportColumn[] = described.getRowObjects().map((r) => ({ name: String(r.column_name), type: String(r.column_type) }));
  const result = await connection.stream(xlsxRowSelect(columns, 'source'));
  async function* rows() {
    for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
      yield blobColumnBytes(chunk, 0);
    }
  }
  const out = new PassThrough();
  const parts: Buffer[] = [];
  out.on('data', (part: Buffer) => parts.push(part));
  await writeXlsx(xlsxHeaderRow(columns), rows(), out);
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.xlsx`);
  await fs.writeFile(file, Buffer.concat(parts));
  const python = process.env.TEST_PYTHON;
  if (!python) throw new Error('TEST_PYTHON is not set: run through test/run.ts, which provisions openpyxl');
  const { stdout } = await run(python, ['-c', READER, file], { maxBuffer: 256 * 1024 * 1024 });
  return JSON.parse(stdout) as { rows: unknown[][]; xml: string };
}

test.serial('text keeps white space at its ends, markup and line breaks; only such text is marked xml:space="preserve"', async (t) => {
  const texts = [
    'plain',
    '  leading',
    'trailing ',
    ' both ',
    'in  between',
    'two\nlines',
    'cr\rhere',
    'tab\there',
    '<b> & </b>',
    'bell\u0007gone',
    '',
    'é 漢字 🎉',
  ];
  const values = texts.map((text, i) => `(${i}, '${text.replaceAll("'", "''")}')`).join(', ');
  const { rows, xml } = await exportXlsx(`SELECT * FROM (VALUES ${values}) AS v(n, text)`);
  t.deepEqual(rows[0], ['n', 'text']);
  const back = rows.slice(1).map((row) => row[1]);
  // Control characters XML cannot hold are dropped.
  t.deepEqual(
    back,
    texts.map((text) => text.replace('\u0007', '')),
  );
  for (const plain of ['plain', 'in  between', 'é 漢字 🎉']) t.true(xml.includes(`<t>${plain}</t>`), plain);
  for (const kept of ['  leading', 'trailing ', ' both ', 'two&#10;lines', 'cr&#13;here', 'tab\there', '&lt;b&gt; &amp; &lt;/b&gt;']) {
    t.true(xml.includes(`<t xml:space="preserve">${kept}</t>`), kept);
  }
});

test.serial('a sheet of many chunks reads back row for row, whatever the length of each row', async (t) => {
  // Rows of a few bytes to a few KB, so that DuckDB's values lie in runs that break where its arena does.
  const { rows } = await exportXlsx('SELECT i, repeat(chr((97 + i % 26)::INTEGER), (i * 7919) % 3000) AS text FROM range(20000) r(i)');
  t.is(rows.length, 20001);
  for (const i of [0, 1, 25, 2047, 2048, 9999, 19999]) {
    const length = (i * 7919) % 3000;
    t.deepEqual(rows[i + 1], [i, String.fromCharCode(97 + (i % 26)).repeat(length)], String(i));
  }
});

test.serial('a BLOB column reads out as its values one after the other, short values held in the vector itself included', async (t) => {
  const sql = "SELECT encode(repeat('x', i % 40) || i::VARCHAR) AS b FROM range(10000) r(i)";
  const result = await connection.stream(sql);
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    const vector = chunk.getColumnVector(0) as DuckDBBlobVector;
    const oneByOne = Buffer.concat(Array.from({ length: chunk.rowCount }, (_, i) => vector.getItemBytes(i)!));
    t.deepEqual(blobColumnBytes(chunk, 0), oneByOne);
  }
});
