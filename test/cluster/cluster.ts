/**
 * Almanac's production shape on one machine (issue 31 §2): two `almanac serve` API processes without a
 * worker and two `almanac worker` processes, each a process of its own, on the suite's one PostgreSQL
 * (a database of their own), Temporal dev server (a task queue of their own) and MinIO (a bucket of
 * their own), with Qdrant as a process of this cluster's own when it is built here (else the embedded
 * index in each API process), behind Debian's haproxy as a load balancer.
 *
 * haproxy rather than a proxy written here: it is what operators put in front of replicas, so its health
 * checks, its redispatch and its retry rules are what a kill -9 meets in production; a proxy of our own
 * would test itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { S3ObjectStore } from '../../src/storage/s3.ts';
import { ApiClient } from '../helpers/client.ts';
import { freshBucketName, suiteMinio } from '../helpers/minio.ts';
import { freePort } from '../helpers/ports.ts';
import { startQdrant } from '../helpers/qdrant-server.ts';

const BIN = fileURLToPath(new URL('../../bin/almanac', import.meta.url));
const HAPROXY_CONFIG = fileURLToPath(new URL('../../deploy/haproxy.cfg', import.meta.url));
export const CLUSTER_ADMIN = { username: 'cluster', password: 'cluster-password-1', email: 'cluster@example.org' };
const START_TIMEOUT_MS = 120_000;

export type VectorBackend = 'qdrant' | 'embedded';

/** One `bin/almanac` process of the cluster: its log lines (JSON text) and how to stop it. */
export interface Member {
  name: string;
  child: ChildProcess;
  /** The API's own address (not the balancer's); undefined for a worker. */
  url?: string;
  logs: string[];
  exited: Promise<void>;
}

export interface Cluster {
  backend: VectorBackend;
  /** The balancer's address: what clients use. */
  url: string;
  api: ApiClient;
  adminToken: string;
  apis: Member[];
  workers: Member[];
  /** The cluster's Qdrant, when the backend is Qdrant. */
  qdrant: { url: string; stop(): Promise<void>; start(): Promise<void> } | null;
  /** haproxy's log lines (httplog: one per request, with its termination state), the latest 20,000. */
  balancerLog: string[];
  /** The cluster's database, for counting what was written. */
  sql<T = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
  /** The keys of the cluster's bucket under a prefix. */
  objects(prefix: string): Promise<string[]>;
  /**
   * The cluster's running workflows with their pending steps (Temporal's pending activities): each step's
   * activity, whether a worker holds it, and which (`<pid>@<host>`, the SDK's default identity).
   */
  runningSteps(): Promise<Array<{ workflowId: string; steps: Array<{ activity: string; worker: string | null }> }>>;
  /** Kills a member with the signal and waits for its exit. */
  kill(member: Member, signal: NodeJS.Signals): Promise<void>;
  /** Starts API process `index` again on its own port (after a kill). */
  restartApi(index: number): Promise<Member>;
  /** Starts another worker (after a kill). */
  startWorker(): Promise<Member>;
  stop(): Promise<void>;
}

/** The backends this machine can run: Qdrant only when scripts/qdrant.sh built it (test/run.ts passes QDRANT_PATH). */
export function availableBackends(): VectorBackend[] {
  return process.env.QDRANT_PATH ? ['qdrant', 'embedded'] : ['embedded'];
}

export async function startCluster(backend: VectorBackend): Promise<Cluster> {
  const baseUrl = process.env.TEST_PG_URL;
  const haproxyPath = process.env.HAPROXY_PATH;
  const modelPath = process.env.EMBEDDINGS_MODEL_PATH;
  if (!baseUrl || !process.env.TEST_TEMPORAL_ADDRESS || !haproxyPath || !modelPath)
    throw new Error('run the cluster tests with `npm test`, which starts the engines and provisions haproxy and the model');
  const stack: Array<() => Promise<unknown>> = [];
  // Every part stops even when one fails; the first failure (a self-check's, say) is the stop's.
  const stopAll = async () => {
    const failures: unknown[] = [];
    for (const part of stack.splice(0).reverse()) await part().catch((err: unknown) => failures.push(err));
    if (failures.length) throw failures[0];
  };
  try {
    const suffix = randomBytes(5).toString('hex');
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), `almanac-cluster-${backend}-`));
    stack.push(() => fs.rm(dir, { recursive: true, force: true }));
    const database = `almanac_cluster_${suffix}`;
    const admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    await admin.query(`create database ${database}`);
    await admin.end();
    const databaseUrl = baseUrl.replace(/\/postgres$/, `/${database}`);
    const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    stack.push(() => db.end());

    let qdrant: Cluster['qdrant'] = null;
    if (backend === 'qdrant') qdrant = await ownQdrant(process.env.QDRANT_PATH!, path.join(dir, 'qdrant'), await freePort());
    if (qdrant) stack.push(() => qdrant!.stop());

    const [balancerPort, ...apiPorts] = [await freePort(), await freePort(), await freePort()];
    const publicUrl = `http://127.0.0.1:${balancerPort}`;
    const minio = suiteMinio();
    const bucket = freshBucketName('cluster');
    const store = new S3ObjectStore({ ...minio, bucket, region: 'us-east-1' });
    const taskQueue = `almanac-cluster-${suffix}`;
    const temporal = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
    stack.push(() => temporal.close());
    const jobs = new Client({ connection: temporal });
    const shared: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
      TEMPORAL_TASK_QUEUE: taskQueue,
      S3_ENDPOINT: minio.endpoint,
      S3_ACCESS_KEY: minio.accessKey,
      S3_SECRET_KEY: minio.secretKey,
      S3_BUCKET: bucket,
      EMBEDDINGS_PROVIDER: 'local',
      EMBEDDINGS_MODEL_PATH: modelPath,
      PUBLIC_URL: publicUrl,
      TRUST_PROXY: 'true',
      LOG_LEVEL: 'info',
      ALMANAC_SELF_CHECK: 'true',
      ALMANAC_SELF_CHECK_REPORT: process.env.ALMANAC_SELF_CHECK_REPORT ?? '',
      ALMANAC_WORKFLOW_BUNDLE: process.env.ALMANAC_WORKFLOW_BUNDLE ?? '',
      ...(qdrant ? { QDRANT_URL: qdrant.url } : {}),
    };
    const members: Member[] = [];
    stack.push(async () => {
      await Promise.all(members.map((m) => stopMember(m, 'SIGTERM')));
      const broken = members.flatMap((m) => m.logs).filter((l) => /"type":"(ResponseMismatch|PolicyNotConsulted)"/.test(l));
      if (broken.length) throw new Error(`self-checks failed in the cluster:\n${broken.join('\n')}`);
    });
    const startApi = async (index: number) => {
      const port = apiPorts[index]!;
      const member = spawnMember(`api${index + 1}`, ['serve'], {
        ...shared,
        HOST: '127.0.0.1',
        PORT: String(port),
        RUN_WORKER: 'false',
        ALMANAC_DATA_DIR: path.join(dir, `api${index + 1}`),
        ALMANAC_ADMIN_USERNAME: CLUSTER_ADMIN.username,
        ALMANAC_ADMIN_PASSWORD: CLUSTER_ADMIN.password,
        ALMANAC_ADMIN_EMAIL: CLUSTER_ADMIN.email,
      });
      member.url = `http://127.0.0.1:${port}`;
      members.push(member);
      await untilReady(member, async () => (await fetch(`${member.url}/api/health`).catch(() => null))?.status === 200);
      return member;
    };
    let workerCount = 0;
    const startWorker = async () => {
      const name = `worker${++workerCount}`;
      const member = spawnMember(name, ['worker'], { ...shared, ALMANAC_DATA_DIR: path.join(dir, name) });
      members.push(member);
      await untilReady(member, () => member.logs.some((l) => l.includes('Temporal worker started')));
      return member;
    };

    // The first API migrates the database and creates the sysadmin; the rest start side by side.
    const apis = [await startApi(0)];
    const [second, ...workers] = await Promise.all([startApi(1), startWorker(), startWorker()]);
    apis.push(second!);

    const balancer = await startHaproxy(haproxyPath, path.join(dir, 'haproxy.cfg'), balancerPort, apiPorts);
    stack.push(() => balancer.stop());

    const api = new ApiClient(publicUrl);
    const login = await api.login(CLUSTER_ADMIN.username, CLUSTER_ADMIN.password);
    const token = await api.post('/api/v1/api-tokens', { name: 'cluster admin' }, { cookie: login.cookie });
    if (token.status !== 201) throw new Error(`cluster admin token: ${token.status} ${token.text}`);

    return {
      backend,
      url: publicUrl,
      api,
      adminToken: token.body.token,
      balancerLog: balancer.log,
      apis,
      workers,
      qdrant,
      sql: async (text, values) => (await db.query(text, values)).rows,
      async objects(prefix) {
        const keys: string[] = [];
        for await (const object of store.list(prefix)) keys.push(object.key);
        return keys;
      },
      async runningSteps() {
        const runs = [];
        for await (const run of jobs.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'` })) {
          const described = await jobs.workflow.getHandle(run.workflowId, run.runId).describe();
          // State 2 is PENDING_ACTIVITY_STATE_STARTED: a worker holds the step.
          const steps = (described.raw.pendingActivities ?? []).map((a) => ({
            activity: a.activityType?.name ?? '?',
            worker: a.state === 2 ? (a.lastWorkerIdentity ?? null) : null,
          }));
          runs.push({ workflowId: run.workflowId, steps });
        }
        return runs;
      },
      kill: stopMember,
      async restartApi(index) {
        const member = await startApi(index);
        apis[index] = member;
        return member;
      },
      async startWorker() {
        const member = await startWorker();
        workers.push(member);
        return member;
      },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll().catch(() => undefined);
    throw err;
  }
}

function spawnMember(name: string, args: string[], env: Record<string, string>): Member {
  const child = spawn(BIN, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: string[] = [];
  const keep = (chunk: Buffer) => {
    logs.push(...chunk.toString().split('\n').filter(Boolean));
    // The start-up and fault lines matter; a long run's request lines need not all stay in memory.
    if (logs.length > 5000) logs.splice(0, logs.length - 5000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { name, child, logs, exited };
}

async function untilReady(member: Member, ready: () => boolean | Promise<boolean>) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await ready())) {
    if (member.child.exitCode !== null || member.child.signalCode !== null)
      throw new Error(`${member.name} exited while starting:\n${member.logs.slice(-20).join('\n')}`);
    if (Date.now() > deadline)
      throw new Error(`${member.name} was not ready within ${START_TIMEOUT_MS / 1000} s:\n${member.logs.slice(-20).join('\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function stopMember(member: Member, signal: NodeJS.Signals) {
  if (member.child.exitCode === null && member.child.signalCode === null) member.child.kill(signal);
  await member.exited;
}

/**
 * haproxy in front of the API processes, with the production configuration (deploy/haproxy.cfg): only its
 * bind address, its log (stderr) and its servers and spares (the API processes' ports instead of Docker's
 * DNS) change.
 */
async function startHaproxy(binary: string, configPath: string, port: number, apiPorts: number[]) {
  const production = await fs.readFile(HAPROXY_CONFIG, 'utf8');
  const servers = apiPorts.map((p, i) => `  server api${i + 1} 127.0.0.1:${p} check inter 1s fall 3 rise 2`).join('\n');
  const spares = apiPorts.map((p, i) => `  server spare${i + 1} 127.0.0.1:${p} backup`).join('\n');
  const edits: Array<[RegExp, string]> = [
    [/^ {2}log stdout format raw local0$/m, '  log stderr format raw local0'],
    [/^resolvers docker\n(?: {2}.*\n)+/m, ''],
    [/^ {2}bind :3000$/m, `  bind 127.0.0.1:${port}`],
    [/^ {2}server-template api .*$/m, servers],
    [/^ {2}server-template spare .*$/m, spares],
  ];
  let config = production;
  for (const [pattern, replacement] of edits) {
    if (!pattern.test(config)) throw new Error(`deploy/haproxy.cfg no longer has ${pattern}: update the cluster harness`);
    config = config.replace(pattern, replacement);
  }
  await fs.writeFile(configPath, config);
  const child = spawn(binary, ['-db', '-f', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  const log: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => {
    log.push(...chunk.toString().split('\n').filter(Boolean));
    if (log.length > 20_000) log.splice(0, log.length - 20_000);
  });
  const stderr = () => log.slice(-20).join('\n');
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}): ${stderr()}`);
    if ((await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => null))?.status === 200) break;
    if (Date.now() > deadline) throw new Error(`haproxy did not answer within 30 s: ${stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    log,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    },
  };
}

/** A Qdrant that the fault tests may stop and start again on the same port and storage. */
async function ownQdrant(binary: string, storage: string, port: number) {
  let running = await startQdrant(binary, { storage, port });
  return {
    url: running.url,
    stop: () => running.stop(),
    async start() {
      running = await startQdrant(binary, { storage, port });
    },
  };
}
