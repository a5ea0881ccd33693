import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { CredentialCache } from './domain/auth/credential-cache.ts';
import type { SearchServices } from './search/search-services.ts';
import type { ObjectStore } from './storage/index.ts';
import type { TemporalJobs } from './temporal/gateway.ts';

/** The long-lived parts the HTTP app and the worker are built from. */
export interface Services {
  config: Config;
  log: Logger;
  orm: MikroORM;
  /** The domain sees it as its Jobs port; the runtime and tests also reach its Temporal client. */
  jobs: TemporalJobs;
  storage: ObjectStore;
  search: SearchServices;
  /** Token and session lookups, kept fresh by the credential change listener (API processes only). */
  credentials?: CredentialCache;
}
