/**
 * `bench scale`'s full reindex (BENCH_SCALE_REINDEX=<runs>): the workflow `reindex-metadata`, as
 * POST /admin/reindex-metadata starts it, run by one `almanac worker` over the whole loaded catalog:
 * every dataset's keyword document, points and vectors rebuilt, embedding only what the cache lacks.
 * BENCH_SCALE_REINDEX_MINUTES caps the wait; past it the workflow is stopped and the figures say how far
 * it got (each of its runs starts with the datasets done so far, carried by continue-as-new). A run after
 * one stopped at the cap stops where that one did: over the same datasets, it finds every text it
 * embeds in the cache the first one filled, so the two give the cold and the warm rate of one catalog.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';

const BIN = fileURLToPath(new URL('../bin/almanac', import.meta.url));
const WORKFLOW_ID = 'reindex-metadata';
/** temporal.api.enums.v1.TaskQueueType (@temporalio/proto, which the client re-exports only as types). */
const TASK_QUEUE_TYPE_WORKFLOW = 1;

export interface ReindexFigures {
  datasets: number;
  seconds: number;
  perSecond: number;
  /** Where it stopped before the end: at the time cap, or where the run before it had stopped. */
  stopped?: 'cap' | 'mark';
  /** PostgreSQL's write-ahead log over the run, in MB: what it wrote (the datasets past a stop's count included). */
  walMb: number;
}

/** The write-ahead log's position, in bytes. */
async function walBytes(databaseUrl: string): Promise<number> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ at: string }>(`select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as at`);
    return Number(rows[0]!.at);
  } finally {
    await db.end();
  }
}

/** Datasets done when the workflow's latest run started (0 for its first run), and when that was (ms since the epoch). */
async function latestRun(client: Client): Promise<{ datasets: number; at: number }> {
  const history = await client.workflow.getHandle(WORKFLOW_ID).fetchHistory();
  const first = history.events?.[0];
  const payload = first?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  const input = payload?.data ? (JSON.parse(Buffer.from(payload.data).toString()) as { datasets?: number } | undefined) : undefined;
  const at = Number(first?.eventTime?.seconds ?? 0) * 1000 + Number(first?.eventTime?.nanos ?? 0) / 1e6;
  return { datasets: input?.datasets ?? 0, at };
}

export async function measureReindex(env: Record<string, string>, capMinutes: number, stopAfter?: number): Promise<ReindexFigures> {
  const worker = spawn(BIN, ['worker'], {
    env: { PATH: process.env.PATH ?? '', ...env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const keep = (chunk: Buffer) => logs.push(...chunk.toString().split('\n').filter(Boolean));
  worker.stdout!.on('data', keep);
  worker.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS });
  try {
    const client = new Client({ connection });
    // The clock starts once the worker polls for workflow tasks: its start is not the reindex's.
    for (;;) {
      const { pollers } = await connection.workflowService.describeTaskQueue({
        namespace: 'default',
        taskQueue: { name: 'almanac' },
        taskQueueType: TASK_QUEUE_TYPE_WORKFLOW,
      });
      if (pollers?.length) break;
      if (worker.exitCode !== null) throw new Error(`the worker exited:\n${logs.slice(-20).join('\n')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const started = Date.now();
    const walStart = await walBytes(env.DATABASE_URL!);
    const walMb = async () => Math.round(((await walBytes(env.DATABASE_URL!)) - walStart) / 1e5) / 10;
    const handle = await client.workflow.start('reindexMetadataWorkflow', { taskQueue: 'almanac', workflowId: WORKFLOW_ID, args: [] });
    let cap: NodeJS.Timeout | undefined;
    let settled = false;
    const atMark = async (): Promise<'mark'> => {
      for (;;) {
        await new Promise((r) => setTimeout(r, 1000));
        if (settled) return new Promise<never>(() => undefined);
        if ((await latestRun(client)).datasets >= stopAfter!) return 'mark';
      }
    };
    const outcome = await Promise.race([
      handle.result() as Promise<{ datasets: number }>,
      new Promise<'cap'>((resolve) => (cap = setTimeout(() => resolve('cap'), capMinutes * 60_000))),
      ...(stopAfter !== undefined ? [atMark()] : []),
      exited.then(() => {
        throw new Error(`the worker exited:\n${logs.slice(-20).join('\n')}`);
      }),
    ]).finally(() => {
      settled = true;
      clearTimeout(cap);
    });
    if (typeof outcome !== 'string') {
      const seconds = (Date.now() - started) / 1000;
      return {
        datasets: outcome.datasets,
        seconds: +seconds.toFixed(1),
        perSecond: +(outcome.datasets / seconds).toFixed(1),
        walMb: await walMb(),
      };
    }
    // Counted where the latest run began (every 2,000 datasets), timed to that moment.
    const { datasets, at } = await latestRun(client);
    await client.workflow.getHandle(WORKFLOW_ID).terminate(`bench scale: stopped at the ${outcome}`);
    const seconds = (at - started) / 1000;
    return { datasets, seconds: +seconds.toFixed(1), perSecond: +(datasets / seconds).toFixed(1), stopped: outcome, walMb: await walMb() };
  } finally {
    await connection.close();
    if (worker.exitCode === null) worker.kill('SIGTERM');
    await exited;
  }
}
