import http from 'node:http';
import type { Logger } from 'pino';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config.ts';
import { ensureInitialAdmin } from '../domain/users/users.ts';
import { createHttpApp } from '../http/app.ts';
import type { Services } from '../services.ts';
import { createObjectStore } from '../storage/index.ts';
import { startWorker } from '../temporal/worker.ts';
import { Workflows } from '../temporal/workflows-client.ts';
import { startDatabase } from './database.ts';
import { startTemporalDevServer } from './temporal-dev-server.ts';

export interface RunningAlmanac {
  url: string;
  services: Services;
  stop(): Promise<void>;
}

const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Starts the service: database (embedded or external) with migrations, storage, Temporal (dev server
 * child or external), the worker when it runs in process, then the HTTP server. Stop runs in reverse.
 */
export async function startAlmanac(config: Config, log: Logger, opts: { http?: boolean } = {}): Promise<RunningAlmanac> {
  const stack: Array<{ name: string; stop: () => Promise<unknown> }> = [];
  const stop = async () => {
    for (const part of stack.splice(0).reverse()) {
      try {
        await part.stop();
      } catch (err) {
        log.error({ err, part: part.name }, 'error while stopping');
      }
    }
    log.info('stopped');
  };

  try {
    const db = await startDatabase(config, log);
    stack.push({ name: 'database', stop: () => db.stop() });

    const storage = createObjectStore(config.storage);
    await storage.ensureReady();

    let address = config.temporal.address;
    if (config.temporal.embedded) {
      const dev = await startTemporalDevServer(
        {
          cliPath: config.temporal.cliPath,
          port: config.temporal.devPort,
          uiPort: config.temporal.uiPort,
          namespace: config.temporal.namespace,
          dbFile: config.temporal.dbFile,
        },
        log,
      );
      stack.push({ name: 'temporal dev server', stop: () => dev.stop() });
      address = dev.address;
    }
    const workflows = await Workflows.connect({ ...config.temporal, address });
    stack.push({ name: 'temporal client', stop: () => workflows.close() });

    const services: Services = { config, log, orm: db.orm, workflows, storage };
    await ensureInitialAdmin({ em: db.orm.em.fork(), config, log, workflows });

    if (config.temporal.runWorkerInProcess) {
      const worker = await startWorker({ ...config.temporal, address, orm: db.orm, log });
      stack.push({ name: 'worker', stop: () => worker.stop() });
    }

    let url = config.http.publicUrl;
    if (opts.http !== false) {
      const server = http.createServer(createHttpApp(services).callback());
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.http.port, config.http.host, () => resolve());
      });
      const port = (server.address() as AddressInfo).port;
      url = `http://127.0.0.1:${port}`;
      stack.push({ name: 'http server', stop: () => closeServer(server) });
      log.info({ url: config.http.publicUrl, port }, 'Almanac is listening');
    }
    return { url, services, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Stops accepting, lets in-flight requests finish, then drops idle keep-alive connections. */
function closeServer(server: http.Server) {
  return new Promise<void>((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}

