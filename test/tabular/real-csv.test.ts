/**
 * Real files: the preview's schema is what DuckDB infers reading the file on its own (names, types
 * through the same mapping, row count), and its null counts and numeric ranges agree with a direct scan.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { buildTabularPreview, detectFormat, mapDuckDbType } from '../../src/tabular/index.ts';
import { query, REAL_CSV, scratchDir, sqlString } from './fixtures.ts';

const files = (await readdir(REAL_CSV)).sort();

// DuckDB rejects this file's bytes outright (neither UTF-8 nor Latin-1; CR-only Mac text), so the
// reference reading is of a UTF-8 copy decoded here in one piece, independently of the pipeline.
const WINDOWS_1252 = new Set(['messytables_horror_211.csv']);

test('the real-csv corpus has its four files', (t) => {
  t.is(files.length, 4);
});

test('DuckDB really cannot read the Windows-1252 file directly', async (t) => {
  for (const file of WINDOWS_1252) {
    await t.throwsAsync(query(`SELECT count(*) FROM read_csv(${sqlString(join(REAL_CSV, file))})`), {
      message: /not utf-8 encoded/i,
    });
  }
});

for (const file of files) {
  test(`real-csv/${file}: the schema is DuckDB's own reading of the file`, async (t) => {
    const workDir = await scratchDir(t);
    let reference = join(REAL_CSV, file);
    if (WINDOWS_1252.has(file)) {
      reference = join(workDir, 'reference.csv');
      await writeFile(reference, new TextDecoder('windows-1252').decode(await readFile(join(REAL_CSV, file))));
    }
    const source = `read_csv(${sqlString(reference)})`;
    const described = await query(`DESCRIBE SELECT * FROM ${source}`);

    const detected = await detectFormat(join(REAL_CSV, file), { filename: file });
    t.is(detected.tabular, file.endsWith('.tsv') ? 'tsv' : 'csv');
    const preview = await buildTabularPreview({
      sourcePath: join(REAL_CSV, file),
      workDir: join(workDir, 'preview'),
      tabular: detected.tabular!,
    });
    t.is(preview.encoding, WINDOWS_1252.has(file) ? 'windows-1252' : 'utf-8');
    t.false(preview.schema.previewTruncated);
    t.deepEqual(
      preview.schema.columns.map(({ name, type }) => ({ name, type })),
      described.map((row) => ({ name: String(row.column_name), type: mapDuckDbType(String(row.column_type)) })),
    );
    t.deepEqual(
      preview.duckdbTypes,
      described.map((row) => String(row.column_type)),
    );

    const ref = (i: number) => `#${i + 1}`;
    const aggregates = preview.schema.columns.flatMap((column, i) => {
      const list = [`count(${ref(i)}) AS c${i}`];
      if (column.type === 'integer') list.push(`min(${ref(i)})::VARCHAR AS lo${i}`, `max(${ref(i)})::VARCHAR AS hi${i}`);
      if (column.type === 'float') list.push(`min(${ref(i)}) AS lo${i}`, `max(${ref(i)}) AS hi${i}`);
      return list;
    });
    const [direct] = await query(`SELECT count(*) AS n, ${aggregates.join(', ')} FROM ${source}`);
    t.is(preview.schema.rowCount, Number(direct!.n));
    preview.schema.columns.forEach((column, i) => {
      t.is(column.nullCount, Number(direct!.n) - Number(direct![`c${i}`]), `${column.name} nulls`);
      if (column.type === 'integer' || column.type === 'float') {
        t.deepEqual(column.stats, { min: direct![`lo${i}`], max: direct![`hi${i}`] }, `${column.name} range`);
      } else {
        t.is(column.stats, undefined);
      }
    });
  });
}
