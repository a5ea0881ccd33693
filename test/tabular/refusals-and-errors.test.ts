/**
 * What cannot be previewed fails as a TabularError with a short message for the uploader: no other
 * exception, no local path, no hang.
 */
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { buildTabularPreview, TabularError } from '../../src/tabular/index.ts';
import { cleanDuckDbMessage, DuckDbSession, DuckDbStatementError } from '../../src/tabular/duckdb-session.ts';
import { scratchDir } from './fixtures.ts';

async function refusal(t: Parameters<typeof scratchDir>[0], bytes: Buffer | string, tabular: 'csv' | 'tsv' = 'csv') {
  const dir = await scratchDir(t);
  await writeFile(join(dir, 'upload'), bytes);
  const error = await t.throwsAsync(buildTabularPreview({ sourcePath: join(dir, 'upload'), workDir: join(dir, 'work'), tabular }), {
    instanceOf: TabularError,
  });
  // A failed preview leaves nothing behind for the caller to upload by mistake.
  t.deepEqual(await readdir(join(dir, 'work')), []);
  return error!;
}

test('an empty or blank file: "The file is empty"', async (t) => {
  for (const bytes of ['', '\n', ' \r\n\t\r\n', '\uFEFF']) {
    const error = await refusal(t, bytes);
    t.is(error.code, 'empty_file');
    t.is(error.message, 'The file is empty');
  }
});

test('binary data without a known signature: not valid UTF-8, UTF-16 or Windows-1252 text', async (t) => {
  const noise = Buffer.from(Array.from({ length: 10_000 }, (_, i) => (i * 7919 + 13) % 256));
  const error = await refusal(t, noise);
  t.is(error.code, 'not_text');
  t.is(error.message, 'The file is not valid UTF-8, UTF-16 or Windows-1252 text');
});

test('JSON, HTML and PDF handed over as CSV are named for what they are', async (t) => {
  t.is((await refusal(t, '[{"a": 1}, {"a": 2}]')).message, 'The file is JSON, not CSV or TSV text');
  t.is((await refusal(t, '<!doctype html><html><title>Not found</title></html>')).message, 'The file is HTML, not CSV or TSV text');
  t.is((await refusal(t, '%PDF-1.4\n1 0 obj\n')).message, 'The file is PDF, not CSV or TSV text');
});

test('a statement past its time limit is interrupted and reported as a timeout', async (t) => {
  const dir = await scratchDir(t);
  const rows = Array.from({ length: 400_000 }, (_, i) => `${i},"name ${i}",${i * 0.5},2024-01-${(i % 28) + 1}`);
  await writeFile(join(dir, 'slow.csv'), `id,name,value,day\n${rows.join('\n')}\n`);
  const started = Date.now();
  const error = await t.throwsAsync(
    buildTabularPreview({ sourcePath: join(dir, 'slow.csv'), workDir: join(dir, 'work'), tabular: 'csv', limits: { timeoutMs: 5 } }),
    { instanceOf: TabularError },
  );
  t.is(error!.code, 'timeout');
  t.regex(error!.message, /^Reading the file took longer than \d+ seconds$/);
  t.true(Date.now() - started < 10_000);
  t.deepEqual(await readdir(join(dir, 'work')), []);
});

test('DuckDB is confined to the work directory, and its errors carry no path', async (t) => {
  const dir = await scratchDir(t);
  const outside = await scratchDir(t);
  await writeFile(join(outside, 'secret.csv'), 'a\n1\n');
  await writeFile(join(dir, 'latin1.csv'), Buffer.from('name\nJosé\n', 'latin1'));
  const db = await DuckDbSession.open(dir);
  t.teardown(() => db.close());

  const denied = await t.throwsAsync(db.rows(`SELECT * FROM read_csv('${join(outside, 'secret.csv')}')`), {
    instanceOf: DuckDbStatementError,
  });
  t.regex(denied!.raw, /disabled by configuration/);
  t.false(denied!.message.includes(outside), denied!.message);
  await t.throwsAsync(db.run(`SET enable_external_access = true`), { instanceOf: DuckDbStatementError });

  const invalid = await t.throwsAsync(db.rows(`SELECT * FROM read_csv('${join(dir, 'latin1.csv')}')`), {
    instanceOf: DuckDbStatementError,
  });
  t.true(invalid!.raw.includes(dir), 'DuckDB itself names the file');
  t.false(invalid!.message.includes(dir), invalid!.message);
  t.false(invalid!.message.includes('/'), invalid!.message);
  t.regex(invalid!.message, /not utf-8 encoded/i);
  t.true(invalid!.message.length <= 300);
});

test('cleaning a DuckDB message keeps the gist and data, drops paths and hints', (t) => {
  const raw = [
    'Invalid Input Error: CSV Error on Line: 2',
    'Original Line: LP,Bezeichnung,Kapitel/Titel,',
    'Expected Number of Columns: 3 Found: 4',
    'Possible fixes:',
    '* Enable null padding (null_padding=true) to pad missing columns with NULL values',
    '  file = /srv/almanac/work/123/.tabular-source.csv',
    "LINE 1: SELECT * FROM read_csv('/srv/almanac/work/123/.tabular-source.csv')",
  ].join('\n');
  t.is(
    cleanDuckDbMessage(raw, ['/srv/almanac/work/123']),
    'CSV Error on Line: 2 Original Line: LP,Bezeichnung,Kapitel/Titel, Expected Number of Columns: 3 Found: 4',
  );
  t.is(
    cleanDuckDbMessage('IO Error: No files found that match the pattern "/home/x/data.csv"'),
    'No files found that match the pattern "<file>"',
  );
});
