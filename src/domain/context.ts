import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { SearchServices } from '../search/search-services.ts';
import type { ObjectStore } from '../storage/object-store.ts';
import type { CredentialCache } from './auth/credential-cache.ts';
import type { Jobs } from './jobs/port.ts';

/** What a domain function may use: one EntityManager fork per request or job, plus shared services. */
export interface DomainContext {
  em: EntityManager;
  config: Config;
  log: Logger;
  jobs: Jobs;
  storage: ObjectStore;
  search: SearchServices;
  /**
   * An API process's cache of token and session lookups. Code that revokes drops its entries here too,
   * so the change holds at once in this process; other processes (and the CLI or a worker, which have
   * none) reach the caches through the database's notifications.
   */
  credentials?: CredentialCache;
}
