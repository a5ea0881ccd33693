import http from 'node:http';
import path from 'node:path';
import type { Logger } from 'pino';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config.ts';
import { forkContext } from '../domain/context.ts';
import { ensureInitialAdmin } from '../domain/users/users.ts';
import { locateTemporalCli } from '../provision/temporal-cli.ts';
import { createActivities } from '../../activities/index.ts';
import { ensureLinkCheckSchedule, ensureStorageSweepSchedule } from '../temporal/schedules.ts';
import { startWorker } from '../temporal/worker.ts';
import { createHttpApp } from './http-app.ts';
import { buildServices, type Services } from './services.ts';
import { StopStack } from './stop-stack.ts';
import { startTemporalDevServer } from './temporal-dev-server.ts';

export interface RunningAlmanac {
  url: string;
  services: Services;
  /** Closes the keep-alive connections no request is using (kept 65 s otherwise): what is left is in use. */
  closeIdleConnections(): void;
  stop(): Promise<void>;
}

const DRAIN_TIMEOUT_MS = 10_000;
/** How long an idle keep-alive connection is kept open (see the server's setup). */
const KEEP_ALIVE_MS = 65_000;

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
  const stack = new StopStack(log);
  const stop = async () => {
    await stack.stop();
    log.info('stopped');
  };

  try {
    // Before anything slow starts: a missing Temporal CLI is fetched now, or the start stops at once.
    const temporalCli = config.temporal.embedded
      ? await locateTemporalCli({ explicit: config.temporal.cliPath, ...config.provision }, log)
      : null;
    let temporalAddress = config.temporal.address;
    const startTemporal = async (cliPath: string) => {
      const dev = await startTemporalDevServer(
        {
          cliPath,
          port: config.temporal.devPort,
          uiPort: config.temporal.uiPort,
          namespace: config.temporal.namespace,
          dbFile: config.temporal.dbFile,
          pidFile: path.join(config.dataDir, 'temporal.pid'),
        },
        log,
      );
      stack.push('temporal dev server', () => dev.stop());
      temporalAddress = dev.address;
      return dev.address;
    };
    const services = await buildServices(config, log, stack, {
      role: 'api',
      startTemporal: temporalCli ? () => startTemporal(temporalCli.path) : undefined,
    });
    await ensureSchedules(services);
    await ensureInitialAdmin(forkContext(services));

    if (config.temporal.runWorkerInProcess) {
      const worker = await startWorker({
        ...config.temporal,
        address: temporalAddress,
        activities: createActivities(services),
        log,
        onFatal: opts.onFatal,
      });
      stack.push('worker', () => worker.stop());
    }

    const server = http.createServer(createHttpApp(services).callback());
    // Receive deadlines are per route (src/http/middleware/request-deadlines.ts): Node's one deadline would cut long uploads.
    server.requestTimeout = 0;
    // A balancer that keeps idle connections to each process sends on them later; if this process closed one
    // as a request arrived, the balancer could neither answer nor retry it (it may have been a write). So idle
    // connections are left to the balancer to close: this outlasts the 60 s that cloud balancers keep them
    // (Node's default is 5 s). deploy/haproxy.cfg keeps none (a connection per request).
    server.keepAliveTimeout = KEEP_ALIVE_MS;
    // Node's advice: a header deadline longer than the keep-alive one, or a reused connection can be cut.
    server.headersTimeout = KEEP_ALIVE_MS + 1000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.http.port, config.http.host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    stack.push('http server', () => closeServer(server));
    log.info({ url: config.http.publicUrl, port }, 'Almanac is listening');
    // The address this process answers on, for callers beside it (tests, benchmarks).
    const url = `http://127.0.0.1:${port}`;
    return { url, services, closeIdleConnections: () => server.closeIdleConnections(), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Every API process makes sure the deployment's schedules exist and match its settings, side by side.
 * Without them the service still serves: links are checked on request (POST /admin/health/check),
 * orphans removed on request (DELETE /admin/storage/orphans).
 */
async function ensureSchedules({ config, jobs, log }: Services) {
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
