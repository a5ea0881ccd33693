import type { Socket } from 'node:net';
import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';

/** Keeps the query locks apart from every other advisory lock of the service. */
export const QUERY_LOCK_SPACE = 7_301;

/** A lock connection nobody has used for this long is closed; the next query opens another. */
const IDLE_CLOSE_MS = 10_000;

/**
 * The locks of one database, held by this API process on a PostgreSQL connection of its own, outside
 * the ORM's pool: a running query holds no pool connection, so a flood of slow queries cannot starve the
 * rest of the API of connections, and the lock and unlock are two short statements on a connection that
 * does nothing else. Session advisory locks rather than a lock row with an expiry: PostgreSQL drops them
 * with the session, so a crashed API process frees its callers at once and nothing has to expire.
 *
 * Advisory locks are re-entrant within a session, and every query of this process shares the session,
 * so the process keeps its own set of callers as well and refuses a second query of one before asking
 * PostgreSQL. Should the connection drop mid-query, its locks go with it: for at most one query timeout,
 * another API process could then start a second query of a caller whose query still runs here.
 */
class LockSession {
  readonly callers = new Set<string>();
  private connection: Promise<pg.Client> | undefined;
  private idle: NodeJS.Timeout | undefined;
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly url: string) {}

  /** One statement at a time on the one connection, in the order asked. */
  query(client: pg.Client, sql: string, params: unknown[]) {
    const result = this.last.then(() => client.query<{ ok: boolean }>(sql, params));
    this.last = result.catch(() => undefined);
    return result;
  }

  client(): Promise<pg.Client> {
    clearTimeout(this.idle);
    if (this.connection) return this.connection;
    const client = new pg.Client({ connectionString: this.url });
    const opened = client.connect().then(() => {
      // Never what keeps a finished process (a test, a script) alive.
      (client as unknown as { connection: { stream: Socket } }).connection.stream.unref();
      return client;
    });
    const forget = () => {
      if (this.connection === opened) this.connection = undefined;
    };
    client.on('error', () => {
      forget();
      client.end().catch(() => undefined);
    });
    client.on('end', forget);
    opened.catch(forget);
    this.connection = opened;
    return opened;
  }

  closeWhenIdle() {
    if (this.callers.size > 0 || !this.connection) return;
    const connection = this.connection;
    this.idle = setTimeout(() => {
      if (this.connection !== connection || this.callers.size > 0) return;
      this.connection = undefined;
      void connection.then((client) => client.end()).catch(() => undefined);
    }, IDLE_CLOSE_MS);
    this.idle.unref();
  }
}

const sessions = new Map<string, LockSession>();

/**
 * Runs `work` while holding the caller's query lock, or returns `busy` when another query of the same
 * caller holds it, in this process or any other API process.
 */
export async function withCallerLock<T>(em: EntityManager, caller: string, work: () => Promise<T>): Promise<T | 'busy'> {
  const url = em.config.get('clientUrl')!;
  let session = sessions.get(url);
  if (!session) sessions.set(url, (session = new LockSession(url)));
  if (session.callers.has(caller)) return 'busy';
  session.callers.add(caller);
  try {
    const client = await session.client();
    const { rows } = await session.query(client, 'select pg_try_advisory_lock($1, hashtext($2)) as ok', [QUERY_LOCK_SPACE, caller]);
    if (!rows[0]?.ok) return 'busy';
    try {
      return await work();
    } finally {
      // A dropped connection has released the lock already.
      await session.query(client, 'select pg_advisory_unlock($1, hashtext($2)) as ok', [QUERY_LOCK_SPACE, caller]).catch(() => undefined);
    }
  } finally {
    session.callers.delete(caller);
    session.closeWhenIdle();
  }
}
