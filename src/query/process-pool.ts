import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import type { ExportReady } from './export-run.ts';
import type { QueryJob, QueryProcessMessage } from './query-process.ts';
import { QueryError, queryTimedOut, queryTooLarge, type QueryResult } from './sandbox.ts';

/**
 * Queries run in child processes, never in the API's own: a process is the one thing that can be
 * stopped whatever DuckDB is doing. A worker thread cannot: DuckDB runs a query as a task on libuv's
 * thread pool, which worker threads share with the API's main thread (four threads by default, so four
 * long queries would also stall the API's file, DNS and crypto work), and Worker.terminate() waits for
 * that task to end, which a runaway recursive CTE never does. A child process has its own thread pool,
 * its memory can be capped by the kernel, and SIGKILL at the deadline ends it, DuckDB's threads included.
 *
 * Processes are started ahead and reused: each runs one query at a time, in a fresh DuckDB instance per
 * query (query-process.ts), and is killed only when a query overran or broke it. A few wait warm, so
 * starting Node and DuckDB (hundreds of milliseconds) is off a query's path.
 */

/** Warm processes kept waiting for a query. */
const WARM = 2;
/**
 * Below the API's priority once it runs queries: under a flood of them the API still gets the CPU to
 * answer other requests. Not while it starts, which would then crawl on a busy machine.
 */
const NICENESS = 5;
/** The V8 heap of a query process: it holds at most one capped result (5 MB of JSON) and DuckDB's chunks. */
const HEAP_MB = 256;

const entry = fileURLToPath(new URL(import.meta.url.endsWith('.js') ? './query-process.js' : './query-process.ts', import.meta.url));
/** util-linux's prlimit sets the child's RLIMIT_DATA before Node starts; without it only DuckDB's own cap holds. */
const prlimit = ['/usr/bin/prlimit', '/bin/prlimit'].find((file) => fs.existsSync(file));
/** The API's loader flags (tsx in development and tests) carry over; a debugger or heap size does not. */
const nodeFlags = () => process.execArgv.filter((flag) => !/^--(inspect|max-old-space-size|expose-gc)/.test(flag));

class QueryProcess {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  isReady = false;
  exited = false;
  private lowered = false;

  constructor(memoryBytes: number) {
    const node = [...nodeFlags(), `--max-old-space-size=${HEAP_MB}`, entry];
    const [command, args] = prlimit ? [prlimit, [`--data=${memoryBytes}`, process.execPath, ...node]] : [process.execPath, node];
    this.child = spawn(command, args, {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'advanced',
      // Nothing of the API's environment (database URL, storage keys); the time zone shapes TIMESTAMPTZ.
      env: process.env.TZ ? { TZ: process.env.TZ } : {},
    });
    // Waiting processes must not keep a finished script (a test, the bench) alive.
    this.child.unref();
    this.child.channel?.unref();
    this.child.once('exit', () => {
      this.exited = true;
      const at = warm.indexOf(this);
      if (at >= 0) warm.splice(at, 1);
    });
    this.ready = new Promise((resolve, reject) => {
      this.child.on('message', (message: QueryProcessMessage) => 'ready' in message && resolve());
      this.child.once('error', reject);
      this.child.once('exit', (code, signal) => reject(new Error(`the query process ended before it was ready (${signal ?? code})`)));
    });
    this.ready.then(
      () => (this.isReady = true),
      () => undefined,
    );
    // Errors after the start (a signal to a process already gone) change nothing: its exit says it all.
    this.child.on('error', () => undefined);
  }

  async run(job: QueryJob, onExportReady?: (ready: ExportReady) => void): Promise<QueryResult> {
    try {
      await this.ready;
    } catch (err) {
      throw new ProcessBroken(err instanceof Error ? err.message : String(err));
    }
    if (!this.lowered && this.child.pid !== undefined) {
      this.lowered = true;
      lowerPriority(this.child.pid);
    }
    return new Promise((resolve, reject) => {
      const onMessage = (message: QueryProcessMessage) => {
        if ('ready' in message) return;
        if ('exportReady' in message) return onExportReady?.(message.exportReady);
        done();
        if ('result' in message) resolve(message.result);
        else if (message.failure.code === 'broken') reject(new ProcessBroken(message.failure.message));
        else if (message.failure.code === 'internal') reject(new Error(`query process: ${message.failure.message}`));
        else reject(new QueryError(message.failure.code, message.failure.message));
      };
      const onExit = () => {
        done();
        // Nothing but memory ends a query process in the middle of a query (its timeout kill settles the
        // query first): an abort is V8 past its heap cap or DuckDB past the data limit, and under a busy
        // machine's memory pressure the end can also come as SIGKILL (the OOM killer) or SIGSEGV (an
        // allocation DuckDB did not check).
        reject(queryTooLarge(job.limits));
      };
      const done = () => {
        this.child.off('message', onMessage);
        this.child.off('exit', onExit);
      };
      this.child.on('message', onMessage);
      this.child.on('exit', onExit);
      // A closed channel is an exit too, which onExit reports.
      this.child.send(job, () => undefined);
    });
  }

  kill() {
    if (!this.exited) this.child.kill('SIGKILL');
  }
}

/**
 * Every thread of the process: Linux keeps a nice value per thread, and setPriority(pid) reaches only the
 * main one, while DuckDB's threads and libuv's pool run the queries. A thread started later (DuckDB's, for
 * the next sandbox) takes its starter's value, so the process stays lowered.
 */
function lowerPriority(pid: number) {
  let threads: number[];
  try {
    threads = fs.readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    threads = [pid]; // no /proc: the process, as the platform has it
  }
  for (const thread of threads) {
    try {
      os.setPriority(thread, NICENESS);
    } catch {
      // Not permitted here (some containers), or the thread has ended: it runs at the API's priority.
    }
  }
}

/**
 * The process died before it was ready, or could not open a sandbox (under a busy machine's memory
 * pressure a fresh DuckDB instance can fail to start): the query never ran, so running it in a new
 * process is safe and is what the caller wants.
 */
class ProcessBroken extends Error {}

const warm: QueryProcess[] = [];
const busy = new Set<QueryProcess>();
/** Queries waiting for one of the `maxProcesses` slots, first come first served. */
const waiting: Array<() => void> = [];

function refillWarm(memoryBytes: number) {
  while (warm.length < WARM) warm.push(new QueryProcess(memoryBytes));
}

function release(queryProcess: QueryProcess, reusable: boolean, maxProcesses: number) {
  busy.delete(queryProcess);
  if (reusable && !queryProcess.exited && warm.length < WARM) warm.push(queryProcess);
  else queryProcess.kill();
  while (waiting.length > 0 && busy.size < maxProcesses) waiting.shift()!();
}

/**
 * Runs a job in a query process. The deadline counts from the call, waiting for a free process
 * included, and holds whatever the load: at the deadline the process is killed and the answer is
 * query_timeout. At most `maxProcesses` queries run at once in this API process; later ones wait.
 */
export function runInQueryProcess(job: QueryJob, maxProcesses: number, onExportReady?: (ready: ExportReady) => void): Promise<QueryResult> {
  const memoryBytes = job.limits.processMemoryBytes;
  return new Promise((resolve, reject) => {
    let queryProcess: QueryProcess | undefined;
    let settled = false;
    const settle = (reusable: boolean, answer: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const queued = waiting.indexOf(start);
      if (queued >= 0) waiting.splice(queued, 1);
      if (queryProcess) release(queryProcess, reusable, maxProcesses);
      answer();
      // After the answer, so that starting a process does not compete with this query for the CPU.
      setImmediate(() => refillWarm(memoryBytes));
    };
    const timer = setTimeout(() => settle(false, () => reject(queryTimedOut(job.limits))), job.limits.timeoutMs);
    let retried = false;
    const start = () => {
      // A process that is ready rather than the one just started (an export's replacement still loading).
      const at = warm.findIndex((p) => p.isReady);
      const taken = (at >= 0 ? warm.splice(at, 1)[0] : warm.shift()) ?? new QueryProcess(memoryBytes);
      queryProcess = taken;
      busy.add(taken);
      taken.run(job, onExportReady).then(
        // An export leaves its process to go: a whole preview through DuckDB and zlib leaves a heap
        // fragmented enough that the next export in it could run past the process's memory cap.
        (result) => settle(!job.export, () => resolve(result)),
        (err: unknown) => {
          if (settled) return;
          if (err instanceof ProcessBroken && !retried) {
            // Once, in a new process that takes this one's slot, within the same deadline.
            retried = true;
            busy.delete(taken);
            taken.kill();
            start();
            return;
          }
          // A query's own failure leaves its process as good as new; a broken process goes.
          settle(err instanceof QueryError && !taken.exited, () => reject(err));
        },
      );
    };
    if (busy.size < maxProcesses) start();
    else waiting.push(start);
  });
}

/** The query processes' ids, for tests that check that none outlives its deadline. */
export function queryProcessIds() {
  const ids = (processes: Iterable<QueryProcess>) => [...processes].flatMap((p) => (p.child.pid === undefined ? [] : [p.child.pid]));
  return { busy: ids(busy), warm: ids(warm) };
}
