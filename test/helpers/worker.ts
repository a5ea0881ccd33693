import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestApp } from './app.ts';

const BIN = fileURLToPath(new URL('../../bin/almanac', import.meta.url));

/** `almanac worker` as its own process, on the test app's database, task queue and local store (the fault tests kill it). */
export function startWorkerFor(app: TestApp, env: Record<string, string> = {}): ChildProcess {
  const { config } = app.almanac.services;
  return spawn(BIN, ['worker'], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: config.database.mode === 'external' ? config.database.url : '',
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: app.taskQueue,
      // The same local store as the API: the worker reads the uploads and writes the previews there.
      ALMANAC_DATA_DIR: config.dataDir,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** Sends `signal` and waits for the process to exit. */
export const stopProcess = (child: ChildProcess, signal: NodeJS.Signals) =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
    child.once('exit', resolve);
    child.kill(signal);
  });
