import type { EntityManager } from '@mikro-orm/postgresql';

/** Keeps the query locks apart from every other advisory lock of the service. */
export const QUERY_LOCK_SPACE = 7_301;

interface PgConnection {
  query(sql: string, params: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
}

/**
 * Runs `work` while holding the caller's query lock, or returns `busy` when another query of the same
 * caller holds it, in this process or any other API process: a PostgreSQL session advisory lock on a
 * connection kept for the query's duration, so a crashed process releases it with its connection.
 */
export async function withCallerLock<T>(em: EntityManager, caller: string, work: () => Promise<T>): Promise<T | 'busy'> {
  const client = em.getKnex().client;
  const connection = (await client.acquireConnection()) as PgConnection;
  try {
    const { rows } = await connection.query('select pg_try_advisory_lock($1, hashtext($2)) as ok', [QUERY_LOCK_SPACE, caller]);
    if (!rows[0]?.ok) return 'busy';
    try {
      return await work();
    } finally {
      await connection.query('select pg_advisory_unlock($1, hashtext($2))', [QUERY_LOCK_SPACE, caller]);
    }
  } finally {
    await client.releaseConnection(connection);
  }
}
