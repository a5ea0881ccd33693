import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { CredentialCache } from '../domain/auth/credential-cache.ts';
import { followCredentialChanges } from '../domain/auth/credential-follower.ts';
import type { DomainServices } from '../domain/context.ts';
import { followIndexChanges } from '../search/index-follower.ts';
import { loadEmbeddedIndex } from '../search/index-loader.ts';
import { repairUnsyncedDatasets } from '../search/search-repair.ts';
import { createSearchServices } from '../search/search-services.ts';
import { createObjectStore } from '../storage/index.ts';
import { TemporalJobs } from '../temporal/gateway.ts';
import { startDatabase } from './database.ts';
import type { StopStack } from './stop-stack.ts';

/** The process's services; the runtime and tests also reach the Temporal client behind the domain's Jobs port. */
export interface Services extends DomainServices {
  jobs: TemporalJobs;
}

export interface ServiceOptions {
  /** What this process is: an API process follows the changes other processes make; a worker or a command does not. */
  role: 'api' | 'worker' | 'command';
  /**
   * Starts the embedded Temporal dev server once the database is up (the order a start-up is stopped in
   * reverse), and says its address; without it the configured address is used.
   */
  startTemporal?: () => Promise<string>;
}

/**
 * Builds the services once for serve, the worker and the harvest command (migrate and create-user need the
 * database alone): the database (embedded or external, migrated), the object store, the Temporal client
 * and search, each pushed onto `stack` so the caller stops them in reverse. An API process also keeps its embedded vector index and its credential cache in step
 * with the database; a worker connects to Temporal lazily, so it can start before Temporal answers.
 */
export async function buildServices(config: Config, log: Logger, stack: StopStack, opts: ServiceOptions): Promise<Services> {
  // serve is the long-running owner of the embedded cluster: it takes over one a killed run left behind.
  const db = await startDatabase(config, log, { takeOver: opts.role === 'api' });
  stack.push('database', () => db.stop());

  const storage = createObjectStore(config.storage);
  await storage.ensureReady();

  const address = opts.startTemporal ? await opts.startTemporal() : config.temporal.address;
  const jobs = await TemporalJobs.connect({ ...config.temporal, address, lazy: opts.role === 'worker' });
  stack.push('temporal client', () => jobs.close());

  const search = createSearchServices(config, log);
  stack.push('search', () => search.close());
  const services: Services = { config, log, orm: db.orm, jobs, storage, search };
  if (opts.role !== 'api') return services;

  // Without a model no point has a vector, so there is nothing to follow.
  if (search.vectors.kind === 'embedded' && search.embeddings) {
    // This process's own index: changes made by any process reach it through the database.
    const follower = followIndexChanges(db.orm, search);
    stack.push('search change listener', () => follower.stop());
    loadEmbeddedIndex(db.orm.em.fork(), search);
  }
  // What a killed process committed without its search documents is written now, in the background.
  repairUnsyncedDatasets({ em: db.orm.em.fork(), storage, config, search }).then(
    (repaired) => repaired > 0 && log.warn({ datasets: repaired }, 'datasets committed without their search documents are now in search'),
    (err: unknown) => log.warn({ err }, 'datasets committed without their search documents could not be written into search'),
  );
  // Revocations made by any process reach this process's cache through the database.
  services.credentials = new CredentialCache();
  const credentialFollower = followCredentialChanges(db.orm, services.credentials, log);
  stack.push('credential change listener', () => credentialFollower.stop());
  return services;
}
