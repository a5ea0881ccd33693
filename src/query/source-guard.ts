/**
 * What a query may read, decided on DuckDB's own parse tree (`json_serialize_sql`): the table `data`,
 * the query's own CTEs, and a few generating table functions. DuckDB's catalog views, its settings and
 * the `duckdb_*` table functions describe the sandbox itself (the preview's file, the server's
 * directories), so they are refused before the query is bound, wherever they hide: in a subquery, a CTE,
 * a PIVOT source or behind a built-in macro.
 */

/** Table functions that only generate rows from their arguments. */
const TABLE_FUNCTIONS = new Set(['range', 'generate_series', 'unnest', 'json_each', 'json_tree']);

/**
 * Scalar functions and built-in macros that read the sandbox's settings, catalog or plan. The unit test
 * checks this list against the running DuckDB's own function catalog, so an upgrade that adds one fails.
 */
export const DENIED_FUNCTIONS = new Set([
  'current_setting',
  'getvariable',
  'json_serialize_plan',
  'format_type',
  'get_block_size',
  'pg_get_constraintdef',
  'pg_get_viewdef',
]);

/** Kinds of FROM item the parser produces for a SELECT; anything else is refused. */
const TABLE_REFS = new Set(['BASE_TABLE', 'JOIN', 'SUBQUERY', 'TABLE_FUNCTION', 'EXPRESSION_LIST', 'EMPTY', 'PIVOT', 'SHOW_REF']);

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);
const lower = (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : '');

export class SourceRefused extends Error {}

/** The tables of a query over one preview; the DataStore's are named by resource id instead. */
const DATA_ONLY: ReadonlySet<string> = new Set(['data']);
/** The tables of the check under way: the walk is synchronous, so there is only ever one. */
let tables = DATA_ONLY;

function refuse(what: string): never {
  // By content: a query over one preview passes `data` (and the versions it attached, `version_<n>`).
  const readable = !tables.has('data')
    ? 'the resources it names by id (that you may read)'
    : tables.size === 1
      ? 'the table "data"'
      : `the tables ${[...tables].map((name) => `"${name}"`).join(', ')}`;
  throw new SourceRefused(`${what} is not available here: a query reads ${readable}, its own CTEs and ${[...TABLE_FUNCTIONS].join(', ')}.`);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function checkTable(ref: Node, scope: ReadonlySet<string>) {
  const name = lower(ref.table_name);
  const schema = lower(ref.schema_name);
  const catalog = lower(ref.catalog_name);
  if (!schema && !catalog && scope.has(name)) return;
  if (tables.has(name) && (schema === '' || schema === 'main') && (catalog === '' || catalog === 'memory')) return;
  const qualified = [catalog, schema, name].filter(Boolean).join('.');
  // A replacement scan names a file: not repeated back, as answers never carry paths. A resource id is the caller's own word.
  refuse(/^[\w.$]+$/.test(qualified) || UUID.test(qualified) ? `The table ${qualified}` : 'Reading a file');
}

function checkTableRef(ref: unknown) {
  if (!isNode(ref)) return;
  const kind = String(ref.type);
  if (!TABLE_REFS.has(kind)) refuse(`A FROM item of kind ${kind}`);
}

function visit(value: unknown, scope: ReadonlySet<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) visit(item, scope);
    return;
  }
  if (!isNode(value)) return;

  const ctes = (value.cte_map as { map?: Array<{ key: string; value: unknown }> } | undefined)?.map ?? [];
  if (ctes.length > 0) {
    // Each CTE sees the ones before it; the query after the WITH sees them all.
    const inner = new Set(scope);
    for (const cte of ctes) {
      visit(cte.value, inner);
      inner.add(cte.key.toLowerCase());
    }
    const { cte_map: _done, ...rest } = value;
    visit(rest, inner);
    return;
  }

  switch (value.type) {
    case 'RECURSIVE_CTE_NODE': {
      // Only the recursive branch sees the CTE itself; elsewhere its name would mean a catalog table.
      const { left, right, ...rest } = value;
      visit(left, scope);
      visit(right, new Set([...scope, lower(value.cte_name)]));
      visit(Object.values(rest), scope);
      return;
    }
    case 'BASE_TABLE':
      checkTable(value, scope);
      break;
    case 'SHOW_REF':
      if (lower(value.table_name)) checkTable(value, scope);
      break;
    case 'TABLE_FUNCTION': {
      const fn = isNode(value.function) ? value.function : {};
      if (!TABLE_FUNCTIONS.has(lower(fn.function_name)) || lower(fn.schema) || lower(fn.catalog)) {
        refuse(`The table function ${String(fn.function_name)}()`);
      }
      break;
    }
    case 'JOIN':
      checkTableRef(value.left);
      checkTableRef(value.right);
      break;
    case 'PIVOT':
      checkTableRef(value.source);
      break;
  }
  if (typeof value.function_name === 'string' && DENIED_FUNCTIONS.has(value.function_name.toLowerCase())) {
    refuse(`The function ${value.function_name}()`);
  }
  if ('from_table' in value) checkTableRef(value.from_table);
  for (const child of Object.values(value)) visit(child, scope);
}

/** Throws SourceRefused when the parsed SELECT reads anything but `readable` (`data`), its CTEs and generators. */
export function assertReadsOnlyData(tree: unknown, readable: ReadonlySet<string> = DATA_ONLY) {
  tables = readable;
  try {
    visit(tree, new Set());
  } finally {
    tables = DATA_ONLY;
  }
}
