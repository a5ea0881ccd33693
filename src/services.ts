import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { SearchServices } from './search/search-services.ts';
import type { ObjectStore } from './storage/index.ts';
import type { Workflows } from './temporal/workflows-client.ts';

/** The long-lived parts the HTTP app and the worker are built from. */
export interface Services {
  config: Config;
  log: Logger;
  orm: MikroORM;
  workflows: Workflows;
  storage: ObjectStore;
  search: SearchServices;
}
