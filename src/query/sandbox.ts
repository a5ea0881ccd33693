import {
  StatementType,
  type DuckDBConnection,
  type DuckDBInstance,
  type DuckDBPreparedStatement,
  type DuckDBResult,
} from '@duckdb/node-api';
import { cleanDuckDbMessage, sqlIdentifier, sqlString } from '../tabular/duckdb-session.ts';
import { queryValueConverter } from './json-values.ts';
import { assertReadsOnlyData, SourceRefused } from './source-guard.ts';
import { refillSpares, takeFreshInstance } from './fresh-instances.ts';

/**
 * One read-only SQL query over one Parquet preview, in a throwaway in-memory DuckDB. The preview is put
 * in place as the view `data` first; then external access is switched off (the preview file is the only
 * path allowed), extensions can neither install nor load, the settings that name directories are
 * emptied, and the configuration is locked, all before the user's SQL is even parsed. The query may read
 * only `data`, its own CTEs and generators (source-guard.ts). Nothing it does reaches another file, a
 * URL, the environment or another query, nor learns where the preview lives.
 */

export interface QueryLimits {
  maxRows: number;
  maxResultBytes: number;
  /** From the request's arrival, waiting for a query process included; the pool enforces it (process-pool.ts). */
  timeoutMs: number;
  threads: number;
  /** DuckDB's own cap, on what its buffer manager allocates (tables, hash joins, sorts). */
  memoryLimit: string;
  /**
   * The whole query process's cap (its data segment): what DuckDB allocates outside its buffer manager,
   * such as one huge string, counts here. Above DuckDB's own cap plus Node's and DuckDB's baseline.
   */
  processMemoryBytes: number;
}

export const QUERY_LIMITS: QueryLimits = {
  maxRows: 10_000,
  maxResultBytes: 5 * 1024 * 1024,
  timeoutMs: 15_000,
  threads: 2,
  memoryLimit: '512MB',
  processMemoryBytes: 1024 * 1024 * 1024,
};

export type QueryFailure = 'query_invalid' | 'query_not_select' | 'query_timeout' | 'query_too_large';

export class QueryError extends Error {
  constructor(
    readonly code: QueryFailure,
    message: string,
  ) {
    super(message);
  }
}

export const queryTimedOut = (limits: QueryLimits) =>
  new QueryError('query_timeout', `The query ran longer than ${limits.timeoutMs / 1000} seconds and was stopped.`);

export const queryTooLarge = (limits: QueryLimits) =>
  new QueryError(
    'query_too_large',
    `The query needed more memory than a query may use (${limits.memoryLimit} in DuckDB) and was stopped; aggregate or filter more, or select smaller values.`,
  );

/** DuckDB's "Out of Memory Error", or V8 refusing a value too long to become a JavaScript string. */
export const isOutOfMemory = (err: unknown) =>
  err instanceof Error &&
  (/^Out of Memory Error/i.test(err.message) ||
    /Cannot create a string longer than|Invalid string length|Array buffer allocation failed/.test(err.message));

export interface QueryResult {
  columns: string[];
  /**
   * Values in the order of `columns`: lists cross to the API process in half the time objects take
   * (structured clone), and the DataStore wants lists anyway; rowObjects gives the query answer's objects.
   */
  rows: unknown[][];
  rowCount: number;
  truncated: boolean;
  elapsedMs: number;
  /** DuckDB's type of each column (`BIGINT`, `VARCHAR[]`), when the job asks (the DataStore reports them). */
  types?: string[];
}

/**
 * The views a query reads instead of `data` (the DataStore's, named by resource id); `rowIds` gives
 * each the preview's row number as `_id`, as a CKAN DataStore table has it, in place of a column of the
 * file named so (a CKAN DataStore dump's first column: a DataStore has one `_id`, and CKAN's own refuses
 * a field of that name).
 */
export interface QueryTable {
  name: string;
  path: string;
  rowIds?: boolean;
}

export interface QueryOptions {
  tables?: QueryTable[];
  columnTypes?: boolean;
  /**
   * The SQL is the service's own, planned from checked names and quoted values (the DataStore's
   * datastore_search), never a caller's text: the source guard has nothing to check in it, and the
   * sandbox it ran in may serve the next planned query of the same tables (see `ahead`).
   */
  planned?: boolean;
}

const viewSql = (table: QueryTable) =>
  table.rowIds
    ? `CREATE VIEW ${sqlIdentifier(table.name)} AS SELECT file_row_number + 1 AS _id, COLUMNS(c -> c NOT IN ('file_row_number', '_id')) FROM read_parquet(${sqlString(table.path)}, file_row_number = true)`
    : `CREATE VIEW ${sqlIdentifier(table.name)} AS SELECT * FROM read_parquet(${sqlString(table.path)})`;

/** The sandbox could not be set up, so the query never ran: the process is at fault, not the query. */
export class SandboxUnavailable extends Error {}

/** A query's own DuckDB instance, and the statement that gives a query's parse tree for the source guard. */
export interface Sandbox {
  instance: DuckDBInstance;
  connection: DuckDBConnection;
  parser: DuckDBPreparedStatement;
  /** Which sandbox of this process it is, in the order they were opened. */
  serial: number;
  /** Planned queries this sandbox has run: a caller's SQL only ever runs in one that has run none. */
  plannedRuns: number;
  /** The planned statements it has prepared, by their SQL, most recent last. */
  planned: Map<string, DuckDBPreparedStatement>;
}

let opened = 0;
let lastRun: { serial: number; plannedBefore: number } | undefined;

/** The sandbox the last query of this process ran in, and how many planned queries it had run before (the reuse rule's tests). */
export const lastSandboxRun = () => lastRun;

/** `writablePaths`: the FIFOs an export writes to (export-run.ts), which the query itself cannot name (source-guard.ts). */
export async function openSandbox(
  parquetPath: string,
  limits: QueryLimits,
  writablePaths: string[] = [],
  tables: QueryTable[] = [{ name: 'data', path: parquetPath }],
): Promise<Sandbox> {
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  let parser: DuckDBPreparedStatement;
  try {
    instance = await takeFreshInstance();
    connection = await instance.connect();
  } catch (err) {
    throw new SandboxUnavailable(`no DuckDB instance: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    // One round trip: the order matters, and lock_configuration comes last.
    await connection.run(
      [
        `SET threads = ${limits.threads}`,
        `SET memory_limit = ${sqlString(limits.memoryLimit)}`,
        // Each view's footer is read once, when the view is made, instead of again at each bind and scan
        // (a filter with its total scans twice: bench datastore, the scan ~6 ms faster). The instance is
        // this query's alone, so nothing is cached from one query to the next.
        'SET parquet_metadata_cache = true',
        ...tables.map(viewSql),
        `SET allowed_paths = [${[...tables.map((t) => t.path), ...writablePaths].map(sqlString).join(', ')}]`,
        'SET enable_external_access = false',
        'SET allow_unsigned_extensions = false',
        ...['secret_directory', 'extension_directory', 'home_directory'].map((setting) => `SET ${setting} = ''`),
        'SET lock_configuration = true',
      ].join(';\n'),
    );
    // Prepared with the sandbox, which is mostly opened ahead: each query's parse tree is then one
    // execution, not a statement parsed, bound and planned first (bench datastore).
    parser = await connection.prepare('SELECT json_serialize_sql($1::VARCHAR) AS tree');
  } catch (err) {
    connection.closeSync();
    instance.closeSync();
    throw new SandboxUnavailable(`the sandbox's settings failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { instance, connection, parser, serial: ++opened, plannedRuns: 0, planned: new Map() };
}

/**
 * Runs in a query process (query-process.ts), never in the API's: the pool kills the process at the
 * deadline, so there is no timer here. Rows are read a chunk at a time and converted one by one until
 * either limit is reached; the rest is never converted, so what leaves the process is at most the capped
 * bytes, whatever the query produces.
 */
export async function runSandboxedQuery(
  parquetPath: string,
  sql: string,
  limits: QueryLimits = QUERY_LIMITS,
  options: QueryOptions = {},
): Promise<QueryResult> {
  const started = performance.now();
  const tables = options.tables ?? [{ name: 'data', path: parquetPath }];
  const planned = options.planned === true;
  const sandbox = await takeSandbox(parquetPath, limits, tables, planned);
  lastRun = { serial: sandbox.serial, plannedBefore: sandbox.plannedRuns };
  let reusable = planned;
  const clean = (err: unknown) =>
    cleanDuckDbMessage(
      err instanceof Error ? err.message : String(err),
      tables.map((t) => t.path),
    );
  try {
    const prepared = planned
      ? await plannedStatement(sandbox, sql, clean)
      : await checkedSelect(sandbox, sql, clean, new Set(tables.map((t) => t.name.toLowerCase())));
    const result = await prepared.stream();
    const types = options.columnTypes ? { types: result.columnTypes().map(String) } : {};
    return { ...(await readCapped(result, limits)), ...types, elapsedMs: Math.round(performance.now() - started) };
  } catch (err) {
    if (err instanceof QueryError) throw err;
    if (isOutOfMemory(err)) {
      reusable = false;
      throw queryTooLarge(limits);
    }
    throw new QueryError('query_invalid', clean(err));
  } finally {
    if (reusable && ++sandbox.plannedRuns < MAX_PLANNED_RUNS) {
      keep(sandboxKey(parquetPath, limits, tables), sandbox);
      setImmediate(refillSpares);
    } else {
      // Closing an instance takes milliseconds (its threads, its memory): after the answer has left, not
      // before (bench query: a count's answer waited 3-10 ms for it).
      setImmediate(() => {
        closeSandbox(sandbox);
        openAhead(parquetPath, limits, tables);
        refillSpares();
      });
    }
  }
}

/**
 * The next query's sandbox, opened once the last query has answered, for the same preview: a caller
 * pages and refines over one table, and opening (the settings, the view, the Parquet footer) is then
 * off the query's path (bench datastore: ~4 ms). Like any other it is an instance no caller's SQL has
 * reached (only the warm-up's constants), locked before any does; a query of other tables or limits
 * closes it and opens its own.
 *
 * After a planned query (the DataStore's own SQL) the sandbox it ran in is kept here instead, warm: the
 * next page of the same table then runs where DuckDB has the file's footer and blocks at hand, as a
 * long-running DuckDB has (bench datastore: the first query of a fresh instance is ~5 ms slower), and
 * nothing is closed or opened between pages. Only planned queries use a kept sandbox; a caller's SQL
 * (POST /resources/{id}/query, datastore_search_sql) always gets one no query has run in, as the spec's
 * "throwaway engine" says. A kept sandbox serves at most MAX_PLANNED_RUNS queries and is closed
 * when idle (KEPT_IDLE_MS), so no instance lives for ever and an idle process holds no cached blocks.
 */
let ahead: { key: string; sandbox: Promise<Sandbox | undefined> } | undefined;

const MAX_PLANNED_RUNS = 200;

/** Prepared statements a kept sandbox holds for planned SQL it may see again. */
const MAX_PLANNED_STATEMENTS = 16;

/**
 * A planned query prepared once per kept sandbox: the same page asked again (the first page of a
 * resource's preview, an app that polls) skips DuckDB's parse, bind and plan (~2-4 ms of a page, bench
 * datastore). A preview file is never rewritten in place, so a plan stays true.
 */
async function plannedStatement(sandbox: Sandbox, sql: string, clean: (err: unknown) => string) {
  const known = sandbox.planned.get(sql);
  if (known) {
    sandbox.planned.delete(sql);
    sandbox.planned.set(sql, known);
    return known;
  }
  const prepared = await preparedSelect(() => sandbox.connection.prepare(sql), clean);
  sandbox.planned.set(sql, prepared);
  if (sandbox.planned.size > MAX_PLANNED_STATEMENTS) {
    const [oldest] = sandbox.planned;
    sandbox.planned.delete(oldest[0]);
    oldest[1].destroySync();
  }
  return prepared;
}

/**
 * A kept sandbox no query has come for in this long is closed: what DuckDB cached of the preview (up to
 * its memory limit) is not held by an idle query process; the next query opens its own.
 */
const KEPT_IDLE_MS = 30_000;

let idleClose: NodeJS.Timeout | undefined;

function keep(key: string, sandbox: Sandbox) {
  const replaced = ahead;
  const kept = { key, sandbox: Promise.resolve<Sandbox | undefined>(sandbox) };
  ahead = kept;
  if (replaced) void replaced.sandbox.then((other) => setImmediate(() => closeSandbox(other)));
  clearTimeout(idleClose);
  idleClose = setTimeout(() => {
    if (ahead !== kept) return;
    ahead = undefined;
    closeSandbox(sandbox);
  }, KEPT_IDLE_MS);
  idleClose.unref();
}

const sandboxKey = (parquetPath: string, limits: QueryLimits, tables: QueryTable[]) =>
  JSON.stringify([parquetPath, limits.threads, limits.memoryLimit, tables]);

const closeSandbox = (sandbox: Sandbox | undefined) => {
  sandbox?.connection.closeSync();
  sandbox?.instance.closeSync();
};

/**
 * A fresh instance's first query also pays for its worker threads' first allocations (~2 ms of the
 * 30 ms sorted page of bench datastore); a sandbox opened ahead runs this query of constants once it
 * is locked, off the path, so the caller's query starts on warm threads. It reads no table or file.
 */
const WARM_UP = 'SELECT sum(range) FROM range(300000)';

async function warmedUp(sandbox: Sandbox) {
  // A failed warm-up changes nothing the query needs: the sandbox is as good, only cold.
  await sandbox.connection.run(WARM_UP).catch(() => undefined);
  return sandbox;
}

function openAhead(parquetPath: string, limits: QueryLimits, tables: QueryTable[]) {
  if (ahead) return;
  // A failure (the file gone meanwhile) is the next query's to meet, in a sandbox of its own.
  ahead = {
    key: sandboxKey(parquetPath, limits, tables),
    sandbox: openSandbox(parquetPath, limits, [], tables)
      .then(warmedUp)
      .catch(() => undefined),
  };
}

async function takeSandbox(parquetPath: string, limits: QueryLimits, tables: QueryTable[], planned: boolean): Promise<Sandbox> {
  const taken = ahead;
  ahead = undefined;
  if (taken?.key === sandboxKey(parquetPath, limits, tables)) {
    const sandbox = await taken.sandbox;
    if (sandbox && (planned || sandbox.plannedRuns === 0)) return sandbox;
    setImmediate(() => closeSandbox(sandbox));
  } else if (taken) {
    void taken.sandbox.then((sandbox) => setImmediate(() => closeSandbox(sandbox)));
  }
  return openSandbox(parquetPath, limits, [], tables);
}

/**
 * The query prepared, once DuckDB's parser has found exactly one SELECT in it that reads nothing but
 * `data`, its CTEs and generators; else a QueryError saying why. `clean` strips paths from DuckDB's messages.
 */
export async function checkedSelect(
  { connection, parser }: Sandbox,
  sql: string,
  clean: (err: unknown) => string,
  tables: ReadonlySet<string> = new Set(['data']),
) {
  // The parse tree first: one SELECT, the common case, needs no statement count of its own (one call
  // into DuckDB fewer, bench datastore); anything else is told apart as before, by the same parser.
  const tree = await parseTree(parser, sql);
  if (tree.error || tree.statements?.length !== 1) return checkedStatements(connection, sql, clean, tables, tree);
  guardSources(tree, tables);
  return preparedSelect(() => connection.prepare(sql), clean);
}

interface ParseTree {
  error?: boolean;
  statements?: unknown[];
}

/** DuckDB's parse tree of `sql` (its own parser), with `error` set for a statement other than SELECT or one that does not parse. */
async function parseTree(parser: DuckDBPreparedStatement, sql: string): Promise<ParseTree> {
  parser.bindVarchar(1, sql);
  const [parsed] = (await parser.runAndReadAll()).getRowObjects();
  return JSON.parse(String(parsed?.tree)) as ParseTree;
}

/** What is not one SELECT: how many statements, and of which type, with the parser's own messages. */
async function checkedStatements(
  connection: DuckDBConnection,
  sql: string,
  clean: (err: unknown) => string,
  tables: ReadonlySet<string>,
  tree: ParseTree,
) {
  let extracted;
  try {
    extracted = await connection.extractStatements(sql);
  } catch (err) {
    throw new QueryError('query_invalid', clean(err));
  }
  if (extracted.count !== 1) {
    throw new QueryError('query_not_select', `Send exactly one statement, a SELECT (got ${extracted.count}).`);
  }
  // The parser's own statement kind as well: PRAGMA and CALL prepare as SELECTs once rewritten.
  if (tree.error) {
    throw new QueryError('query_not_select', 'Only a SELECT (or WITH … SELECT) is allowed.');
  }
  guardSources(tree, tables);
  return preparedSelect(() => extracted.prepare(0), clean);
}

function guardSources(tree: ParseTree, tables: ReadonlySet<string>) {
  try {
    assertReadsOnlyData(tree, tables);
  } catch (err) {
    if (err instanceof SourceRefused) throw new QueryError('query_invalid', err.message);
    throw err;
  }
}

async function preparedSelect(prepare: () => Promise<DuckDBPreparedStatement>, clean: (err: unknown) => string) {
  let prepared;
  try {
    prepared = await prepare();
  } catch (err) {
    if (isOutOfMemory(err)) throw err;
    throw new QueryError('query_invalid', clean(err));
  }
  if (prepared.statementType !== StatementType.SELECT) {
    throw new QueryError('query_not_select', 'Only a SELECT (or WITH … SELECT) is allowed.');
  }
  return prepared;
}

export async function readCapped(result: DuckDBResult, limits: QueryLimits) {
  // The names of the answer's row objects: a self-join's second `id` becomes `id:1` instead of overwriting the first.
  const columns = result.deduplicatedColumnNames();
  // A row's JSON as an object is its list's JSON with each `"name":` added: the cap counts the object's bytes.
  const keyBytes = columns.reduce((sum, name) => sum + Buffer.byteLength(JSON.stringify(name)) + 1, 0);
  const rows: unknown[][] = [];
  let bytes = 2;
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    // The chunk's vectors fetched once, then read value by value: DuckDB's convertRowValues looks each
    // vector up again for every value (five times slower for a page of 100 rows, bench datastore).
    const vectors = columns.map((_, c) => chunk!.getColumnVector(c));
    for (let i = 0; i < chunk.rowCount; i++) {
      // One row past the limit says that there were more.
      if (rows.length === limits.maxRows) return { columns, rows, rowCount: rows.length, truncated: true };
      const values = vectors.map((vector) => queryValueConverter(vector.getItem(i), vector.type, queryValueConverter));
      bytes += Buffer.byteLength(JSON.stringify(values)) + keyBytes + 1;
      if (bytes > limits.maxResultBytes) return { columns, rows, rowCount: rows.length, truncated: true };
      rows.push(values);
    }
  }
  return { columns, rows, rowCount: rows.length, truncated: false };
}

/** Rows as objects keyed by `columns` (readCapped's deduplicated names), as the query answer gives them. */
export const rowObjects = (columns: string[], rows: unknown[][]) =>
  rows.map((row) => Object.fromEntries(columns.map((name, c) => [name, row[c]])));
