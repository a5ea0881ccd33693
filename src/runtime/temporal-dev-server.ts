import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import type { Logger } from 'pino';
import { STOP_GRACE_MS, stopChild } from './child-process.ts';

export interface TemporalDevServerOptions {
  /** The `temporal` binary, from locateTemporalCli(). */
  cliPath: string;
  port: number;
  uiPort: number;
  namespace: string;
  /** SQLite file that keeps workflow history between runs; omit for an in-memory server (tests). */
  dbFile?: string;
  /** Where the server's pid is kept, so a server left behind by a killed run is found and stopped. */
  pidFile?: string;
  ui?: boolean;
}

export interface RunningTemporal {
  address: string;
  pid: number;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;

/** Starts `temporal server start-dev` as a child process and waits until its frontend accepts connections. */
export async function startTemporalDevServer(opts: TemporalDevServerOptions, log: Logger): Promise<RunningTemporal> {
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(opts.port),
    '--namespace',
    opts.namespace,
    '--log-level',
    'warn',
  ];
  if (opts.dbFile) args.push('--db-filename', opts.dbFile);
  if (opts.ui === false) args.push('--headless');
  else args.push('--ui-port', String(opts.uiPort));

  if (opts.pidFile) await stopLeftover(opts.pidFile, log);
  // Anything else on the port would answer in place of ours; refuse rather than share it.
  if (await canConnect(opts.port)) {
    throw new Error(`port ${opts.port} is already in use: stop what listens there, or set TEMPORAL_DEV_PORT`);
  }
  // Its own process group: a Ctrl-C in the terminal reaches us alone, and we stop the server in order.
  const child = spawn(opts.cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  // Should we exit without stop() (a second Ctrl-C, a crash), the server must not outlive us.
  const stopWithUs = () => child.kill('SIGTERM');
  process.on('exit', stopWithUs);
  child.once('exit', () => process.off('exit', stopWithUs));
  // A failed start shows its first lines (a Go panic names its cause there) and its last.
  const head: string[] = [];
  const tail: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      if (head.length < 10) head.push(line);
      else tail.push(line);
      if (tail.length > 10) tail.shift();
      log.debug({ component: 'temporal' }, line);
    }
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);

  if (opts.pidFile) fs.writeFileSync(opts.pidFile, String(child.pid));
  const address = `127.0.0.1:${opts.port}`;
  try {
    await waitForPort(opts.port, child);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${(err as Error).message}\n${[...head, ...(tail.length ? ['…', ...tail] : [])].join('\n')}`, { cause: err });
  }
  log.info({ address, ui: opts.ui === false ? undefined : `http://localhost:${opts.uiPort}` }, 'Temporal dev server started');
  return { address, pid: child.pid!, stop: () => stopChild(child) };
}

async function waitForPort(port: number, child: ChildProcess) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`temporal dev server exited with code ${child.exitCode}`);
    if (await canConnect(port)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`temporal dev server did not listen on port ${port} within ${START_TIMEOUT_MS / 1000}s`);
}

function canConnect(port: number) {
  return new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Stops the dev server a killed run left behind, if the pid file still names a live `temporal`. */
async function stopLeftover(pidFile: string, log: Logger) {
  const pid = Number(fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8') : 0);
  const name = pid ? fs.promises.readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '') : Promise.resolve('');
  if (!pid || (await name).trim() !== 'temporal') return;
  log.warn({ pid }, 'stopping the Temporal dev server left running by an earlier run');
  // It runs in a process group of its own (detached), so the group holds it and nothing else.
  process.kill(-pid, 'SIGTERM');
  const deadline = Date.now() + STOP_GRACE_MS;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  process.kill(-pid, 'SIGKILL');
}
