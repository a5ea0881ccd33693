import { DuckDBInstance } from '@duckdb/node-api';

/**
 * Never-used in-memory DuckDB instances, created ahead: starting one costs ~9 ms (its catalog and
 * built-in extensions), most of a small query's time. Each query takes one, uses it once and closes it;
 * the replacement starts once it is done, off the request's path. One is enough: this runs in a query
 * process (query-process.ts), which runs one query at a time.
 */
const SPARES = 1;

const OPTIONS = {
  // No spilling: a query that does not fit in memory fails instead of filling the disk.
  temp_directory: '',
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
  allow_community_extensions: 'false',
};

const spares: Array<Promise<DuckDBInstance>> = [];

function create(): Promise<DuckDBInstance> {
  const instance = DuckDBInstance.create(':memory:', OPTIONS);
  // A failed spare is re-raised by take(); until then it must not count as an unhandled rejection.
  instance.catch(() => undefined);
  return instance;
}

export function takeFreshInstance(): Promise<DuckDBInstance> {
  return spares.shift() ?? create();
}

/** After a query, so that starting the next instance does not compete with the query for the CPU. */
export function refillSpares() {
  while (spares.length < SPARES) spares.push(create());
}

/** Resolves once a spare has started (or failed to: the query that takes it then says why). */
export async function spareStarted() {
  refillSpares();
  await spares[0]?.catch(() => undefined);
}
