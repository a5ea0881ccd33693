import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { SearchServices } from '../search/search-services.ts';
import type { ObjectStore } from '../storage/object-store.ts';
import type { CredentialCache } from './auth/credential-cache.ts';
import type { Jobs } from './jobs/port.ts';

/**
 * The long-lived parts a process is built from (src/runtime/services.ts builds them, once, for serve,
 * worker and every CLI command). Entry points and activities take these; domain functions take a
 * DomainContext made from them per request or job.
 */
export interface DomainServices {
  config: Config;
  log: Logger;
  orm: MikroORM;
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

/** What a domain function may use: one EntityManager fork per request or job, plus the shared services. */
export interface DomainContext extends Omit<DomainServices, 'orm'> {
  em: EntityManager;
  /** Set inside `inOneTransaction` (after-commit.ts): the effects that wait for its commit. */
  afterCommit?: Array<() => Promise<unknown>>;
}

/** A context of its own for one job or command: a fresh EntityManager over the shared services. */
export function forkContext({ orm, ...shared }: DomainServices): DomainContext {
  return { ...shared, em: orm.em.fork() };
}
