import http from 'node:http';
import path from 'node:path';
import type { Logger } from 'pino';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config.ts';
import { CredentialCache } from '../domain/auth/credential-cache.ts';
import { followCredentialChanges } from '../domain/auth/credential-follower.ts';
import { ensureInitialAdmin } from '../domain/users/users.ts';
import { createHttpApp } from '../http/app.ts';
import { followIndexChanges } from '../search/index-follower.ts';
import { loadEmbeddedIndex } from '../search/index-loader.ts';
import { createSearchServices } from '../search/search-services.ts';
import type { Services } from '../services.ts';
import { createObjectStore } from '../storage/index.ts';
import { createActivities } from '../../activities/index.ts';
import { ensureLinkCheckSchedule, ensureStorageSweepSchedule } from '../temporal/schedules.ts';
import { startWorker } from '../temporal/worker.ts';
import { TemporalJobs } from '../temporal/gateway.ts';
import { startDatabase } from './database.ts';
import { locateTemporalCli } from '../provision/temporal-cli.ts';
import { startTemporalDevServer } from './temporal-dev-server.ts';

export interface RunningAlmanac {
  url: string;
  services: Services;
  stop(): Promise<void>;
}

const DRAIN_TIMEOUT_MS = 10_000;

export interface StartOptions {
  /** A part failed for good after start (the worker, say): the caller should stop the service. */
  onFatal?: (err: unknown) => void;
}

/**
 * Starts the service: the Temporal CLI found or fetched (embedded mode), database (embedded or external)
 * with migrations, storage, Temporal (dev server child or external), the worker when it runs in process,
 * then the HTTP server. Stop runs in reverse.
 */
export async function startAlmanac(config: Config, log: Logger, opts: StartOptions = {}): Promise<RunningAlmanac> {
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
    // Before anything slow starts: a missing Temporal CLI is fetched now, or the start stops at once.
    const temporalCli = config.temporal.embedded
      ? await locateTemporalCli({ explicit: config.temporal.cliPath, ...config.provision }, log)
      : null;
    // serve is the long-running owner of the embedded cluster: it takes over one a killed run left behind.
    const db = await startDatabase(config, log, { takeOver: true });
    stack.push({ name: 'database', stop: () => db.stop() });

    const storage = createObjectStore(config.storage);
    await storage.ensureReady();

    let address = config.temporal.address;
    if (temporalCli) {
      const dev = await startTemporalDevServer(
        {
          cliPath: temporalCli.path,
          port: config.temporal.devPort,
          uiPort: config.temporal.uiPort,
          namespace: config.temporal.namespace,
          dbFile: config.temporal.dbFile,
          pidFile: path.join(config.dataDir, 'temporal.pid'),
        },
        log,
      );
      stack.push({ name: 'temporal dev server', stop: () => dev.stop() });
      address = dev.address;
    }
    const jobs = await TemporalJobs.connect({ ...config.temporal, address });
    stack.push({ name: 'temporal client', stop: () => jobs.close() });
    // Every API process makes sure the deployment's schedules exist and match its settings, side by side.
    // Without them the service still serves: links are checked on request (POST /admin/health/check),
    // orphans removed on request (DELETE /admin/storage/orphans).
    const { taskQueue } = config.temporal;
    const schedules = {
      'link-check': ensureLinkCheckSchedule(jobs.client, {
        taskQueue,
        intervalMs: config.linkCheck.intervalMs,
        workflowOptions: { timeoutMs: config.linkCheck.timeoutMs },
      }),
      'sweep-storage': ensureStorageSweepSchedule(jobs.client, {
        taskQueue,
        intervalMs: config.storageSweep.intervalMs,
        workflowOptions: { olderThanSeconds: config.storageSweep.olderThanSeconds },
      }),
    };
    await Promise.all(
      Object.entries(schedules).map(([name, ensured]) =>
        ensured.then(
          (outcome) => log.info({ outcome }, `${name} schedule`),
          (err) => log.error({ err }, `the ${name} schedule could not be created or updated`),
        ),
      ),
    );

    const search = createSearchServices(config, log);
    stack.push({ name: 'search', stop: () => search.close() });
    if (search.vectors.kind === 'embedded') {
      // This process's own index: changes made by any process reach it through the database.
      const follower = followIndexChanges(db.orm, search);
      stack.push({ name: 'search change listener', stop: () => follower.stop() });
      loadEmbeddedIndex(db.orm.em.fork(), search);
    }
    // Revocations made by any process reach this process's cache through the database.
    const credentials = new CredentialCache();
    const credentialFollower = followCredentialChanges(db.orm, credentials, log);
    stack.push({ name: 'credential change listener', stop: () => credentialFollower.stop() });
    const services: Services = { config, log, orm: db.orm, jobs, storage, search, credentials };
    await ensureInitialAdmin({ em: db.orm.em.fork(), config, log });

    if (config.temporal.runWorkerInProcess) {
      const activities = createActivities({ orm: db.orm, storage, config, search, jobs, log });
      const worker = await startWorker({ ...config.temporal, address, activities, log, onFatal: opts.onFatal });
      stack.push({ name: 'worker', stop: () => worker.stop() });
    }

    const server = http.createServer(createHttpApp(services).callback());
    // Receive deadlines are per route (src/http/middleware/request-deadlines.ts): Node's one deadline would cut long uploads.
    server.requestTimeout = 0;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.http.port, config.http.host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    stack.push({ name: 'http server', stop: () => closeServer(server) });
    log.info({ url: config.http.publicUrl, port }, 'Almanac is listening');
    // The address this process answers on, for callers beside it (tests, benchmarks).
    const url = `http://127.0.0.1:${port}`;
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
