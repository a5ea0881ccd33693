import { DefaultLogger, NativeConnection, Runtime, Worker, makeTelemetryFilterString } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { Activities } from '../../activities/index.ts';
import { workflowCode } from './workflow-bundle.ts';

export interface RunningWorker {
  stop(): Promise<void>;
}

let runtimeInstalled = false;

/** Starts a worker on the task queue. */
export async function startWorker(opts: {
  address: string;
  namespace: string;
  taskQueue: string;
  /** A prebuilt workflow bundle (ALMANAC_WORKFLOW_BUNDLE); else the build's, else bundled from source. */
  workflowBundle?: string;
  log: Logger;
  /** Built once by the caller with createActivities() over the app's services (tests pass their own). */
  activities: Activities;
  /** Called when the worker stops on its own (a fatal error), so the process can stop in order. */
  onFatal?: (err: unknown) => void;
}): Promise<RunningWorker> {
  if (!runtimeInstalled) {
    Runtime.install({
      // The process stops the worker itself, in order, after the HTTP server has drained.
      shutdownSignals: [],
      logger: new DefaultLogger('INFO', ({ level, message, meta }) => {
        const method = level === 'WARN' ? 'warn' : level === 'ERROR' ? 'error' : 'debug';
        opts.log[method]({ component: 'temporal-worker', ...meta }, message);
      }),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} } },
    });
    runtimeInstalled = true;
  }
  const connection = await NativeConnection.connect({ address: opts.address });
  const worker = await Worker.create({
    connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    ...workflowCode(opts.workflowBundle),
    activities: opts.activities,
  }).catch(async (err) => {
    await connection.close();
    throw err;
  });
  const running = worker.run().catch((err) => {
    opts.log.error({ err }, 'Temporal worker failed');
    opts.onFatal?.(err);
  });
  opts.log.info({ taskQueue: opts.taskQueue }, 'Temporal worker started');
  return {
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
