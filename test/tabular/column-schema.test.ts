/**
 * The schema record: DuckDB types mapped to the spec's four, null counts, and numeric ranges that survive
 * JSON (integer bounds as exact decimal strings, float bounds over finite values only).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { buildTabularPreview, mapDuckDbType, type ColumnSchema } from '../../src/tabular/index.ts';
import { scratchDir } from './fixtures.ts';

test('DuckDB types map to integer, float, boolean or string', (t) => {
  const integers = ['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT'];
  for (const type of integers) t.is(mapDuckDbType(type), 'integer', type);
  for (const type of ['FLOAT', 'DOUBLE', 'DECIMAL(18,3)', 'DECIMAL']) t.is(mapDuckDbType(type), 'float', type);
  t.is(mapDuckDbType('BOOLEAN'), 'boolean');
  const strings = ['VARCHAR', 'DATE', 'TIME', 'TIMESTAMP', 'TIMESTAMP WITH TIME ZONE', 'INTERVAL', 'UUID', 'BLOB', 'BIGINT[]'];
  for (const type of strings) t.is(mapDuckDbType(type), 'string', type);
});

const withoutFingerprint = ({ fingerprint: _, ...column }: ColumnSchema) => column;

const CSV = [
  'big,f,onlynan,flag,day,empty,a,a,',
  '9007199254740993,1.5,nan,true,2024-01-02,,1,2,3',
  '9223372036854775807,nan,nan,false,2024-02-03,,1,2,3',
  '-9223372036854775808,inf,nan,,2024-03-04,,1,2,3',
  '1,-inf,nan,true,,,1,2,',
  '5,-2.25,nan,false,2024-01-01,,1,2,3',
].join('\n');

test('columns, types, null counts and ranges of a typed file', async (t) => {
  const dir = await scratchDir(t);
  await writeFile(join(dir, 'types.csv'), CSV);
  const preview = await buildTabularPreview({ sourcePath: join(dir, 'types.csv'), workDir: join(dir, 'work'), tabular: 'csv' });
  t.is(preview.schema.rowCount, 5);
  t.deepEqual(preview.duckdbTypes, ['BIGINT', 'DOUBLE', 'DOUBLE', 'BOOLEAN', 'DATE', 'VARCHAR', 'BIGINT', 'BIGINT', 'BIGINT']);
  for (const column of preview.schema.columns) t.regex(column.fingerprint!, /^-?\d+$/, column.name);
  t.deepEqual(preview.schema.columns.map(withoutFingerprint), [
    // Beyond 2^53 a JS number would round these; as strings they stay exact.
    {
      name: 'big',
      type: 'integer',
      nullable: false,
      nullCount: 0,
      stats: { min: '-9223372036854775808', max: '9223372036854775807' },
    },
    // NaN and ±Infinity are not JSON: the range covers the finite values only.
    { name: 'f', type: 'float', nullable: false, nullCount: 0, stats: { min: -2.25, max: 1.5 } },
    { name: 'onlynan', type: 'float', nullable: false, nullCount: 0, stats: { min: null, max: null } },
    { name: 'flag', type: 'boolean', nullable: true, nullCount: 1 },
    { name: 'day', type: 'string', nullable: true, nullCount: 1 },
    { name: 'empty', type: 'string', nullable: true, nullCount: 5 },
    // Duplicate and blank header cells keep the names DuckDB gives them.
    { name: 'a', type: 'integer', nullable: false, nullCount: 0, stats: { min: '1', max: '1' } },
    { name: 'a_1', type: 'integer', nullable: false, nullCount: 0, stats: { min: '2', max: '2' } },
    { name: 'column8', type: 'integer', nullable: true, nullCount: 1, stats: { min: '3', max: '3' } },
  ]);
  t.notThrows(() => JSON.stringify(preview.schema));
});

test('a header-only file is a schema of string columns and no rows', async (t) => {
  const dir = await scratchDir(t);
  await writeFile(join(dir, 'header.csv'), 'id,name\n');
  const preview = await buildTabularPreview({ sourcePath: join(dir, 'header.csv'), workDir: join(dir, 'work'), tabular: 'csv' });
  t.is(preview.schema.rowCount, 0);
  t.deepEqual(preview.schema.columns.map(withoutFingerprint), [
    { name: 'id', type: 'string', nullCount: 0, nullable: false },
    { name: 'name', type: 'string', nullCount: 0, nullable: false },
  ]);
});

async function fingerprints(t: ExecutionContext, name: string, csv: string) {
  const dir = await scratchDir(t);
  await writeFile(join(dir, name), csv);
  const preview = await buildTabularPreview({ sourcePath: join(dir, name), workDir: join(dir, 'work'), tabular: 'csv' });
  return Object.fromEntries(preview.schema.columns.map((column) => [column.name, column.fingerprint]));
}

test('a fingerprint follows the values of a column, not their order, nor its name or position', async (t) => {
  const first = await fingerprints(t, 'first.csv', 'id,label,pairs,other\n1,a,1,2\n2,b,1,2\n3,,4,4\n4,c,4,4\n');
  const shuffled = await fingerprints(t, 'shuffled.csv', 'name,key\nc,4\n,3\na,1\nb,2\n');
  t.is(shuffled.key, first.id);
  t.is(shuffled.name, first.label);
  t.not(first.id, first.label);
  // Values that come in pairs: an order-free xor of hashes would make these two alike.
  t.not(first.pairs, first.other);
  const edited = await fingerprints(t, 'edited.csv', 'id,label\n1,a\n2,b\n3,\n5,c\n');
  t.not(edited.id, first.id);
  t.is(edited.label, first.label);
});
