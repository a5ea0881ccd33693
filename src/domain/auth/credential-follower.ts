import type { MikroORM } from '@mikro-orm/postgresql';
import { listenToChannel } from '../../db-listener.ts';
import type { Logger } from 'pino';
import type { CredentialCache } from './credential-cache.ts';

/** The channel triggers on api_tokens, sessions and users notify (migration AuthNotify). */
export const AUTH_CHANNEL = 'almanac_auth';

/**
 * Drops this process's cached credentials whenever any process (another replica, the CLI, a worker, SQL
 * by hand) revokes a token, ends a session or changes a user's state or sysadmin flag: LISTEN on a
 * dedicated connection, as the search index follower does. A cache hit first waits for a round trip on
 * that connection, so a revocation answered before the request came is heard before it is answered.
 * The cache is switched off while that connection is down and cleared when it is back, so no
 * revocation made in between is missed.
 */
export function followCredentialChanges(orm: MikroORM, cache: CredentialCache, log: Logger): { stop(): Promise<void> } {
  const listening = listenToChannel(
    orm.config.get('clientUrl')!,
    AUTH_CHANNEL,
    {
      onNotify: (key) => cache.forgetNotified(key),
      onListening: () => cache.setListening(true, () => listening.sync()),
      onLost: () => cache.setListening(false),
      lostMessage: 'the credential change listener lost its connection; token and session lookups bypass the cache until it is back',
    },
    log,
  );
  return {
    async stop() {
      cache.setListening(false);
      await listening.stop();
    },
  };
}
