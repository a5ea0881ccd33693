import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { Logger } from 'pino';
import type { CredentialCache } from './credential-cache.ts';

/** The channel triggers on api_tokens, sessions and users notify (migration AuthNotify). */
export const AUTH_CHANNEL = 'almanac_auth';
const RECONNECT_MS = 2_000;

/**
 * Drops this process's cached credentials whenever any process (another replica, the CLI, a worker, SQL
 * by hand) revokes a token, ends a session or changes a user's state or sysadmin flag: LISTEN on a
 * dedicated connection, as the search index follower does. The cache is switched off while that
 * connection is down and cleared when it is back, so no revocation made in between is missed.
 */
export function followCredentialChanges(orm: MikroORM, cache: CredentialCache, log: Logger): { stop(): Promise<void> } {
  // Its own connection, outside the ORM's pool: a pool that is closing waits for what it lent out.
  const connectionString = orm.config.get('clientUrl');
  let stopped = false;
  let connection: pg.Client | null = null;
  let retry: NodeJS.Timeout | undefined;

  const connect = async () => {
    if (stopped) return;
    // Keep-alive probes notice a connection that died silently; until then the cache's TTL is the bound.
    const client = new pg.Client({ connectionString, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    connection = client;
    let lostOnce = false;
    const lost = (err?: Error) => {
      if (lostOnce || stopped) return;
      lostOnce = true;
      cache.setListening(false);
      log.warn({ err }, 'the credential change listener lost its connection; token and session lookups bypass the cache until it is back');
      connection = null;
      void client.end().catch(() => undefined);
      retry = setTimeout(() => void connect(), RECONNECT_MS);
    };
    // Kept for the client's whole life: an unheard `error` would crash the process.
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      if (message.channel === AUTH_CHANNEL && message.payload) cache.forgetNotified(message.payload);
    });
    try {
      await client.connect();
      await client.query(`listen ${AUTH_CHANNEL}`);
      if (!lostOnce && !stopped) cache.setListening(true);
    } catch (err) {
      lost(err as Error);
    }
  };
  void connect();

  return {
    async stop() {
      stopped = true;
      clearTimeout(retry);
      cache.setListening(false);
      const held = connection;
      connection = null;
      await held?.end().catch(() => undefined);
    },
  };
}
