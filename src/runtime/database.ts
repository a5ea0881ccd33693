import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { migrate, openDatabase } from '../db.ts';
import { SNAPSHOT_FUNCTION_SQL } from '../domain/activity/snapshot-function.ts';
import { startEmbeddedPostgres } from './embedded-postgres.ts';

const EMBEDDED_DATABASE = 'almanac';

export interface RunningDatabase {
  orm: MikroORM;
  stop(): Promise<void>;
}

/** Connects to DATABASE_URL, or starts the embedded cluster; migrations are applied either way. */
export async function startDatabase(config: Config, log: Logger, opts: { takeOver?: boolean } = {}): Promise<RunningDatabase> {
  let stopCluster = async () => {};
  let url: string;
  if (config.database.mode === 'external') {
    url = config.database.url;
  } else {
    const cluster = await startEmbeddedPostgres(config.database.dir, config.database.port, log, opts);
    stopCluster = () => cluster.stop();
    try {
      await cluster.ensureDatabase(EMBEDDED_DATABASE);
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    url = cluster.url(EMBEDDED_DATABASE);
  }
  try {
    const orm = await openDatabase(url);
    await migrate(orm, log, [SNAPSHOT_FUNCTION_SQL]);
    return {
      orm,
      async stop() {
        await orm.close();
        await stopCluster();
      },
    };
  } catch (err) {
    await stopCluster();
    throw err;
  }
}
