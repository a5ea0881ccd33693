import test from 'ava';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from '../../src/tabular/duckdb-session.ts';
import { assertReadsOnlyData, DENIED_FUNCTIONS, SourceRefused } from '../../src/query/source-guard.ts';

/** DuckDB's own parser, as the sandbox uses it: the guard sees exactly the tree a query produces. */
let connection: DuckDBConnection;
test.before(async () => {
  connection = await (await DuckDBInstance.create(':memory:')).connect();
});

async function parse(sql: string): Promise<unknown> {
  const [row] = (await connection.runAndReadAll(`SELECT json_serialize_sql(${sqlString(sql)}) AS tree`)).getRowObjects();
  const tree = JSON.parse(String(row?.tree)) as { error?: boolean; error_message?: string };
  if (tree.error) throw new Error(`not a SELECT: ${tree.error_message}`);
  return tree;
}

const allowed = [
  'SELECT * FROM data',
  'SELECT count(*) FROM main.data',
  'SELECT * FROM memory.main.data',
  'SELECT * FROM "DATA"',
  'FROM data SELECT 1',
  'SELECT a.x FROM data a JOIN data b ON a.x = b.x',
  'WITH a AS (SELECT * FROM data), b AS (SELECT * FROM a) SELECT * FROM b',
  'WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT * FROM t',
  'SELECT * FROM (WITH inner_cte AS (SELECT 1 AS x) SELECT * FROM inner_cte)',
  'SELECT * FROM range(10) r, generate_series(1, 3) g',
  'SELECT * FROM unnest([1, 2, 3])',
  `SELECT * FROM json_each('{"a": 1}')`,
  'SELECT * FROM (VALUES (1, 2), (3, 4)) v(a, b)',
  'SELECT x, (SELECT max(x) FROM data) FROM data WHERE x IN (SELECT x FROM data)',
  'SELECT list_transform([1, 2], v -> v + 1)',
  "SELECT * FROM data PIVOT (count(*) FOR x IN ('a'))",
  'SUMMARIZE data',
  'DESCRIBE data',
  'SELECT histogram(x) FROM data',
  'SELECT version(), current_date, current_database()',
];

for (const sql of allowed) {
  test(`allowed: ${sql}`, async (t) => {
    const tree = await parse(sql);
    t.notThrows(() => assertReadsOnlyData(tree));
  });
}

const refused: Array<[string, RegExp]> = [
  ['SELECT * FROM duckdb_settings()', /duckdb_settings\(\)/],
  ['SELECT * FROM duckdb_settings', /duckdb_settings/],
  ['SELECT sql FROM duckdb_views()', /duckdb_views/],
  ['SELECT * FROM information_schema.views', /information_schema\.views/],
  ['SELECT * FROM sqlite_master', /sqlite_master/],
  ['SELECT * FROM pg_views', /pg_views/],
  ['SELECT * FROM pg_catalog.pg_views', /pg_views/],
  ['SELECT * FROM system.main.data', /system\.main\.data/],
  ['SELECT * FROM other.data', /other\.data/],
  ["SELECT current_setting('allowed_paths')", /current_setting/],
  ["SELECT CURRENT_SETTING('allowed_paths')", /CURRENT_SETTING/i],
  ["SELECT system.main.current_setting('allowed_paths')", /current_setting/],
  ["SELECT getvariable('x')", /getvariable/],
  ["SELECT json_serialize_plan('SELECT * FROM data')", /json_serialize_plan/],
  ['SELECT pg_get_viewdef(0)', /pg_get_viewdef/],
  ["SELECT * FROM read_parquet('x.parquet')", /read_parquet/],
  ["SELECT * FROM read_csv('/etc/passwd')", /read_csv/],
  ["SELECT * FROM 'x.csv'", /x\.csv/],
  ["SELECT * FROM '/etc/passwd'", /Reading a file/],
  ["SELECT * FROM query('SELECT 1')", /query\(\)/],
  ['SELECT * FROM histogram(data, x)', /histogram\(\)/],
  ["SELECT * FROM parquet_metadata('x')", /parquet_metadata/],
  ['SELECT * FROM duckdb_external_file_cache()', /duckdb_external_file_cache/],
  ['SELECT * FROM data WHERE x IN (SELECT 1 FROM duckdb_settings())', /duckdb_settings/],
  ['SELECT (FROM duckdb_databases() SELECT path LIMIT 1)', /duckdb_databases/],
  ['SELECT * FROM data, LATERAL (SELECT * FROM duckdb_settings())', /duckdb_settings/],
  ['SELECT * FROM data UNION ALL SELECT * FROM duckdb_settings()', /duckdb_settings/],
  ["SELECT list_transform([1], v -> current_setting('allowed_paths'))", /current_setting/],
  ['SELECT * FROM duckdb_settings() PIVOT (count(*) FOR name IN (1))', /duckdb_settings/],
  ['DESCRIBE duckdb_settings', /duckdb_settings/],
  ['SUMMARIZE SELECT * FROM duckdb_settings()', /duckdb_settings/],
  // A CTE's name means the CTE only after it is defined; before, or inside itself, it means the catalog's.
  ['WITH pg_views AS (SELECT * FROM pg_views) SELECT * FROM pg_views', /pg_views/],
  ['WITH RECURSIVE pg_views AS (SELECT * FROM pg_views) SELECT * FROM pg_views', /pg_views/],
  ['WITH a AS (SELECT * FROM sqlite_master), sqlite_master AS (SELECT 1) SELECT * FROM a', /sqlite_master/],
  ['WITH RECURSIVE pg_views AS (SELECT * FROM pg_views UNION ALL SELECT * FROM pg_views) SELECT 1', /pg_views/],
  ['SELECT * FROM (WITH pg_views AS (SELECT 1) SELECT * FROM pg_views), pg_views', /pg_views/],
];

for (const [sql, named] of refused) {
  test(`refused: ${sql}`, async (t) => {
    const tree = await parse(sql);
    const err = t.throws(() => assertReadsOnlyData(tree), { instanceOf: SourceRefused });
    t.regex(err?.message ?? '', named);
    t.regex(err?.message ?? '', /the table "data"/);
  });
}

test('every built-in macro that reads the catalog, the settings or a plan is denied by name', async (t) => {
  const rows = (
    await connection.runAndReadAll(`SELECT DISTINCT function_name, macro_definition FROM duckdb_functions() WHERE function_type = 'macro'`)
  ).getRowObjects();
  t.true(rows.length > 50, `DuckDB lists ${rows.length} macros`);
  const reading = rows.filter((row) =>
    /\b(?:duckdb_\w+|pragma_\w+|current_setting|getvariable|json_serialize_plan)\s*\(/i.test(String(row.macro_definition)),
  );
  t.true(reading.length > 0, 'the pattern finds the known ones (pg_get_viewdef, format_type, …)');
  for (const row of reading) t.true(DENIED_FUNCTIONS.has(String(row.function_name)), `${row.function_name}: ${row.macro_definition}`);
});

test('no alias reaches a denied function under another name', async (t) => {
  const rows = (
    await connection.runAndReadAll(`SELECT function_name, alias_of FROM duckdb_functions() WHERE alias_of IS NOT NULL`)
  ).getRowObjects();
  t.true(rows.length > 0);
  for (const row of rows.filter((r) => DENIED_FUNCTIONS.has(String(r.alias_of).toLowerCase()))) {
    t.true(DENIED_FUNCTIONS.has(String(row.function_name).toLowerCase()), `${row.function_name} is an alias of ${row.alias_of}`);
  }
});

test('a query that attached two versions reads exactly `data` and those, and names them when it refuses another', async (t) => {
  const attached = new Set(['data', 'version_1', 'version_3']);
  for (const sql of ['SELECT * FROM version_1 a JOIN version_3 b USING (id)', 'SELECT * FROM data, main.version_3']) {
    const tree = await parse(sql);
    t.notThrows(() => assertReadsOnlyData(tree, attached), sql);
  }
  for (const sql of ['SELECT * FROM version_2', 'SELECT * FROM other.version_1', 'SELECT * FROM duckdb_tables()']) {
    const tree = await parse(sql);
    const error = t.throws(() => assertReadsOnlyData(tree, attached), { instanceOf: SourceRefused }, sql);
    t.regex(error!.message, /the tables "data", "version_1", "version_3"/);
  }
  const alone = await parse('SELECT * FROM version_1');
  t.throws(() => assertReadsOnlyData(alone), { instanceOf: SourceRefused }, 'a query that attached none reads none');
});
