import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../src/config.ts';
import type { SearchServices } from '../src/search/search-services.ts';
import type { ObjectStore } from '../src/storage/object-store.ts';

/** What the worker hands every activity factory: the app's services, built once per worker. */
export interface ActivityServices {
  orm: MikroORM;
  storage: ObjectStore;
  config: Config;
  search: SearchServices;
}
