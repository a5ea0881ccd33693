import test from 'ava';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { DomainError } from '../../src/domain/errors.ts';
import { planDatastoreSearch, type DatastoreQuery } from '../../src/domain/resources/datastore-sql.ts';
import type { ColumnSchema } from '../../src/tabular/column-schema.ts';

/**
 * datastore_search's SQL (datastore-sql.ts) run by DuckDB over a table whose columns are named as the
 * plan's own outputs (`t` the total, `k` the cursor, `c0`… the fields), and a number column filtered with
 * text: each answer checked against the question asked of DuckDB directly.
 */

const COLUMNS: ColumnSchema[] = [
  { name: 't', type: 'integer', nullable: false, nullCount: 0 },
  { name: 'c1', type: 'integer', nullable: false, nullCount: 0 },
  { name: 'k', type: 'string', nullable: false, nullCount: 0 },
  { name: 'x', type: 'float', nullable: false, nullCount: 0 },
];
const ROWS = [
  [30, 3, 'b', 1.5],
  [10, 1, 'c', 2.5],
  [20, 2, 'a', 43],
  [40, 44, 'd', 44],
];

let duck: DuckDBInstance;
let db: DuckDBConnection;

test.before(async () => {
  duck = await DuckDBInstance.create(':memory:');
  db = await duck.connect();
  await db.run(
    `CREATE TABLE data AS SELECT * FROM (VALUES ${ROWS.map((r, i) => `(${i + 1}, ${r[0]}, ${r[1]}, '${r[2]}', ${r[3]}::DOUBLE)`).join(', ')}) AS v(_id, t, c1, k, x)`,
  );
});
test.after.always(() => {
  db?.closeSync();
  duck?.closeSync();
});

const query = (q: Partial<DatastoreQuery>): DatastoreQuery => ({ distinct: false, limit: 100, offset: 0, includeTotal: true, ...q });
const ids = async (q: Partial<DatastoreQuery>) => {
  const plan = planDatastoreSearch(COLUMNS, query(q), false);
  const reader = await db.runAndReadAll(plan.pageSql);
  return reader.getRowObjectsJson().map((row) => Number(row.c0));
};

test('a sort by a column named as an output (t, c1, k) sorts by that column', async (t) => {
  t.deepEqual(await ids({ sort: ['t desc'] }), [4, 1, 3, 2]);
  t.deepEqual(await ids({ sort: ['c1 asc'] }), [2, 3, 1, 4]);
  t.deepEqual(await ids({ sort: ['k'] }), [3, 1, 2, 4]);
  t.deepEqual(await ids({ sort: ['k desc'], fields: ['_id', 'x'] }), [4, 2, 1, 3]);
  t.deepEqual(await ids({ sort: ['t desc'], distinct: true, fields: ['_id', 't'] }), [4, 1, 3, 2]);
});

test('filters on columns named as outputs, and the total beside them', async (t) => {
  const plan = planDatastoreSearch(COLUMNS, query({ filters: { t: [10, 40], k: 'c' } }), false);
  const rows = (await db.runAndReadAll(plan.pageSql)).getRowObjectsJson();
  t.deepEqual(
    rows.map((r) => [Number(r.c0), Number(r.t)]),
    [[2, 1]],
  );
});

test('text for a number column must be that number exactly: "43.5" is refused, never rounded to 44', async (t) => {
  t.deepEqual(await ids({ filters: { c1: '44' } }), [4]);
  t.deepEqual(await ids({ filters: { c1: ' 3 ' } }), [1]);
  t.deepEqual(await ids({ filters: { x: '43' } }), [3]);
  t.deepEqual(await ids({ filters: { x: '2.5e0' } }), [2]);
  t.deepEqual(await ids({ filters: { c1: 43.5 } }), [], 'a JSON number that is no integer matches nothing, as in PostgreSQL');
  for (const [field, value] of [
    ['c1', '43.5'],
    ['c1', '1e2'],
    ['c1', 'forty'],
    ['x', '1.5; drop'],
    ['_id', '1.0'],
  ]) {
    const err = t.throws(() => planDatastoreSearch(COLUMNS, query({ filters: { [field]: value } }), false), { instanceOf: DomainError });
    t.deepEqual(err?.errors, [{ path: 'filters', message: `invalid value "${field}"` }], `${field}: ${value}`);
  }
});
