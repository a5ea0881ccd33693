/**
 * Whether a failure says a backend (the database, the object store) is out of reach, as opposed to a
 * refusal of the request itself: an outage is answered 503 (or retried), a refusal is the caller's or a
 * bug. One list for every adapter and entry point, so that they agree on what "down" means. Errors are
 * read by their codes and names only, so this low layer imports no driver.
 */

/** Socket and resolver codes of a server that could not be reached: refused, reset, unroutable, unresolvable, timed out. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** PostgreSQL shutting down or starting up (57P01–57P03), and its connection failures (08…). */
const DATABASE_DOWN_SQLSTATES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);

/** SQLSTATE classes of a database that is down, restarting, out of resources, or of a transaction to retry. */
const TRANSIENT_SQLSTATE_CLASSES = /^(08|40|53|55|57|58|XX)/;
const SQLSTATE = /^[0-9A-Z]{5}$/;

/** The failure and what it wraps: its causes, and the attempts of an AggregateError (one per address tried). */
function* chain(err: unknown, depth = 0): Generator<{ code?: unknown; message?: unknown; name?: unknown }> {
  if (!err || typeof err !== 'object' || depth >= 4) return;
  yield err;
  const { cause, errors } = err as { cause?: unknown; errors?: unknown };
  yield* chain(cause, depth + 1);
  if (Array.isArray(errors)) for (const attempt of errors) yield* chain(attempt, depth + 1);
}

/** A network failure to reach a server at all (whatever the server). */
export function isUnreachable(err: unknown): boolean {
  for (const e of chain(err)) if (typeof e.code === 'string' && UNREACHABLE_CODES.has(e.code)) return true;
  return false;
}

/**
 * PostgreSQL out of reach: not reachable, refusing connections while it shuts down or starts, a
 * connection dropped under a query, or no pooled connection to be had in time.
 */
export function isDatabaseDown(err: unknown): boolean {
  if (isUnreachable(err)) return true;
  for (const e of chain(err)) {
    if (typeof e.code === 'string' && DATABASE_DOWN_SQLSTATES.has(e.code)) return true;
    // MikroORM's class for connection errors, and knex's pool timeout: by name, as the drivers are not imported here.
    if (e.name === 'ConnectionException' || e.name === 'KnexTimeoutError') return true;
    if (typeof e.message === 'string' && /^Connection terminated|Connection ended unexpectedly/.test(e.message)) return true;
  }
  return false;
}

/**
 * A database failure that a later attempt may not meet: the database down, restarting or out of
 * resources, or a transaction to retry (a deadlock, a serialization failure). Anything else a database
 * says (a constraint, a value out of range) is about the statement and would fail again.
 */
export function isTransientDatabaseFailure(err: unknown): boolean {
  if (isDatabaseDown(err)) return true;
  const { code } = err as { code?: unknown };
  return typeof code === 'string' && SQLSTATE.test(code) && TRANSIENT_SQLSTATE_CLASSES.test(code);
}
