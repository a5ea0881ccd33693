import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Jobs } from '../src/domain/jobs/port.ts';
import type { Config } from '../src/config.ts';
import type { SearchServices } from '../src/search/search-services.ts';
import type { ObjectStore } from '../src/storage/object-store.ts';

/** What the worker hands every activity factory: the app's services, built once per worker. */
export interface ActivityServices {
  orm: MikroORM;
  storage: ObjectStore;
  config: Config;
  search: SearchServices;
  /**
   * The jobs port, for activities whose domain work starts follow-up jobs (a harvested record's search
   * sync). Workers built without it run every other activity; a harvest page fails saying it is missing.
   */
  jobs?: Jobs;
  log?: Logger;
}
