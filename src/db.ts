import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { allEntities } from './entities/index.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const migrationsDir = path.join(root, 'migrations');

export function ormOptions(clientUrl: string): Options {
  return {
    clientUrl,
    entities: allEntities,
    extensions: [Migrator],
    discovery: { warnWhenNoEntities: true },
    migrations: {
      path: migrationsDir,
      pathTs: migrationsDir,
      glob: '!(*.d).{js,ts}',
      snapshot: true,
      snapshotName: '.snapshot-almanac',
      transactional: true,
      allOrNothing: true,
      silent: true,
    },
    pool: { min: 0, max: 10 },
    forceUtcTimezone: true,
    preferTs: true,
    debug: false,
  };
}

export async function openDatabase(clientUrl: string) {
  return MikroORM.init(ormOptions(clientUrl));
}

export async function migrate(orm: MikroORM, log: Logger) {
  const applied = await orm.getMigrator().up();
  if (applied.length > 0) log.info({ migrations: applied.map((m) => m.name) }, 'database migrated');
}
