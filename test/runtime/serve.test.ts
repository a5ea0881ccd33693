/**
 * The life of `bin/almanac serve` in embedded mode, as a real child process: cold start on an empty data
 * directory, warm start on the same one with nothing lost, and shutdown on SIGTERM and on a terminal's
 * Ctrl-C that drains requests and leaves no process (Postgres, Temporal) and no port behind.
 */
import test, { type ExecutionContext } from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { ApiClient } from '../helpers/client.ts';
import { freePort } from '../helpers/ports.ts';

const BIN = fileURLToPath(new URL('../../bin/almanac', import.meta.url));
const ADMIN = { username: 'boss', password: 'boss-password-1', email: 'boss@example.org' };
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;

// ---- the process tree, read from /proc ----

interface Proc {
  pid: number;
  ppid: number;
  comm: string;
  state: string;
  /** Clock ticks after boot; tells a live process from a later one that got the same pid. */
  start: string;
}

function readProc(pid: number): Proc | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so split after the last ')'.
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  return { pid, comm: stat.slice(stat.indexOf('(') + 1, close), state: fields[0], ppid: Number(fields[1]), start: fields[19] };
}

/** `root` and every process below it, found by walking the ppid links of /proc. */
function processTree(root: number): Proc[] {
  const all = fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readProc(Number(name)))
    .filter((p): p is Proc => p !== undefined);
  const tree = all.filter((p) => p.pid === root);
  for (let i = 0; i < tree.length; i++) tree.push(...all.filter((p) => p.ppid === tree[i].pid));
  return tree;
}

function isAlive(p: Proc) {
  const now = readProc(p.pid);
  return now !== undefined && now.start === p.start && now.state !== 'Z';
}

function portIsFree(port: number) {
  return new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A deadline for Promise.race that does not keep the test process alive once the race is won. */
const deadline = (ms: number) => delay(ms, undefined, { ref: false });

// ---- one `almanac serve` child ----

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

class Serve {
  readonly child: ChildProcess;
  readonly startedAt = Date.now();
  /** Parsed pino lines from stdout. */
  readonly logs: Array<{ msg?: string; [k: string]: unknown }> = [];
  stderr = '';
  readonly exited: Promise<Exit>;
  /** After the exit, once stdout and stderr are read to their end. */
  readonly closed: Promise<void>;
  /** Every process seen under the child, so that a failed test can still clean up. */
  readonly seen = new Map<number, Proc>();

  constructor(env: NodeJS.ProcessEnv, opts: { ownProcessGroup?: boolean } = {}) {
    this.child = spawn(BIN, ['serve'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: opts.ownProcessGroup });
    let pending = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop()!;
      for (const line of lines.filter(Boolean)) {
        try {
          this.logs.push(JSON.parse(line));
        } catch {
          this.logs.push({ msg: line });
        }
      }
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
    this.closed = new Promise((resolve) => this.child.once('close', () => resolve()));
    started.add(this);
  }

  get pid() {
    return this.child.pid!;
  }

  logged(msg: string) {
    return this.logs.some((l) => l.msg === msg);
  }

  async until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = START_TIMEOUT_MS) {
    const deadline = Date.now() + timeoutMs;
    let exit: Exit | undefined;
    void this.exited.then((e) => (exit = e));
    while (Date.now() < deadline) {
      if (await check()) return;
      if (exit) throw new Error(`almanac serve exited (${exit.code ?? exit.signal}) before ${what}\n${this.describe()}`);
      await sleep(100);
    }
    throw new Error(`no ${what} within ${timeoutMs / 1000}s\n${this.describe()}`);
  }

  /** Waits for GET /api/health to say ok; returns the milliseconds since spawn. */
  async healthy(url: string) {
    await this.until('healthy /api/health', async () => {
      const res = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
      return res?.status === 200 && (await res.json()).status === 'ok';
    });
    for (const p of processTree(this.pid)) this.seen.set(p.pid, p);
    return Date.now() - this.startedAt;
  }

  /** Waits for the exit; a child still running after the timeout is a failure (it is killed later). */
  async exit(timeoutMs = STOP_TIMEOUT_MS): Promise<Exit & { ms: number }> {
    const from = Date.now();
    const exit = await Promise.race([this.exited, deadline(timeoutMs)]);
    if (!exit) throw new Error(`almanac serve still runs ${timeoutMs / 1000}s after the signal\n${this.describe()}`);
    const ms = Date.now() - from;
    await Promise.race([this.closed, deadline(2000)]);
    return { ...exit, ms };
  }

  describe() {
    const tail = this.logs
      .slice(-15)
      .map((l) => JSON.stringify(l))
      .join('\n');
    return `stdout (last lines):\n${tail}\nstderr:\n${this.stderr}`;
  }

  /** Last resort after a failed test: SIGKILL whatever is left of the tree. */
  killAll() {
    // Once the child is gone its pid may belong to someone else: only the processes seen before count.
    if (this.child.exitCode === null && this.child.signalCode === null) {
      for (const p of processTree(this.pid)) this.seen.set(p.pid, p);
    }
    for (const p of this.seen.values()) {
      if (isAlive(p)) {
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
    }
  }
}

/** Every child of this file; whatever is left of them is killed at the end, passed or failed. */
const started = new Set<Serve>();

// ---- shared assertions ----

/** The service's whole tree, checked to hold the embedded Postgres and the Temporal dev server. */
function treeWithEngines(t: ExecutionContext, serve: Serve) {
  const tree = processTree(serve.pid);
  for (const p of tree) serve.seen.set(p.pid, p);
  t.true(
    tree.some((p) => p.comm === 'postgres'),
    `no postgres under almanac serve: ${tree.map((p) => p.comm).join(', ')}`,
  );
  t.true(
    tree.some((p) => p.comm === 'temporal'),
    `no temporal under almanac serve: ${tree.map((p) => p.comm).join(', ')}`,
  );
  return tree;
}

async function assertCleanStop(t: ExecutionContext, serve: Serve, tree: Proc[], ports: number[]) {
  const exit = await serve.exit();
  t.log(`stopped in ${(exit.ms / 1000).toFixed(1)}s`);
  t.deepEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, serve.describe());
  t.true(serve.logged('stopped'), `the ordered stop did not finish\n${serve.describe()}`);
  t.is(serve.stderr.trim(), '', 'nothing on stderr');

  // Everything was awaited before the exit; give helpers that end on EOF (esbuild's service) a moment.
  const deadline = Date.now() + 3000;
  let alive = tree.filter(isAlive);
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(100);
    alive = alive.filter(isAlive);
  }
  t.deepEqual(
    alive.map((p) => `${p.comm} (${p.pid})`),
    [],
    'processes left behind',
  );
  for (const port of ports) t.true(await portIsFree(port), `port ${port} is still taken`);
}

// ---- one data directory for the whole file ----

let dataDir: string;
let env: NodeJS.ProcessEnv;
let ports: number[];
let api: ApiClient;
const state: { token?: string; org?: string } = {};

test.before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'almanac-serve-'));
  // PostgreSQL runs as its own user when we are root and must reach inside (see test/run.ts).
  fs.chmodSync(dataDir, 0o755);
  const [port, pgPort, temporalPort, uiPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  ports = [port, pgPort, temporalPort, uiPort];
  // Embedded mode: nothing of the production shape may leak in from the environment of the suite.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        !/^(DATABASE_URL|TEMPORAL_(?!CLI_PATH)|S3_|QDRANT_|RUN_WORKER|PUBLIC_URL|HOST|PORT|EMBEDDED_PG_PORT|ALMANAC_|LOG_LEVEL)/.test(k),
    ),
  );
  env = {
    ...inherited,
    HOST: '127.0.0.1',
    PORT: String(port),
    EMBEDDED_PG_PORT: String(pgPort),
    TEMPORAL_DEV_PORT: String(temporalPort),
    TEMPORAL_UI_PORT: String(uiPort),
    ALMANAC_DATA_DIR: dataDir,
    ALMANAC_ADMIN_USERNAME: ADMIN.username,
    ALMANAC_ADMIN_PASSWORD: ADMIN.password,
    ALMANAC_ADMIN_EMAIL: ADMIN.email,
    LOG_LEVEL: 'info',
  };
  api = new ApiClient(`http://127.0.0.1:${port}`);
});

test.after.always(async () => {
  for (const serve of started) serve.killAll();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

test.serial('cold start on an empty data directory; SIGTERM stops everything and exits 0', async (t) => {
  const serve = new Serve(env);
  const coldMs = await serve.healthy(api.baseUrl);
  t.log(`cold start: ${(coldMs / 1000).toFixed(1)}s to a healthy /api/health`);
  t.true(fs.existsSync(path.join(dataDir, 'pg', 'PG_VERSION')), 'the cluster lives under $ALMANAC_DATA_DIR/pg');
  t.true(fs.existsSync(path.join(dataDir, 'temporal.db')), 'Temporal keeps its SQLite file under $ALMANAC_DATA_DIR');

  const login = await api.login(ADMIN.username, ADMIN.password);
  t.is(login.status, 200, login.text);
  const token = await api.post('/api/v1/api-tokens', { name: 'lifecycle' }, { cookie: login.cookie });
  t.is(token.status, 201, token.text);
  state.token = token.body.token;
  const org = await api.post('/api/v1/organizations', { name: 'survives-restarts' }, { token: state.token });
  t.is(org.status, 201, org.text);
  state.org = org.body.name;

  const tree = treeWithEngines(t, serve);
  serve.child.kill('SIGTERM');
  await assertCleanStop(t, serve, tree, ports);
});

test.serial('warm start on the same data directory keeps the data; Ctrl-C stops everything and exits 0', async (t) => {
  t.truthy(state.org, 'needs the organization of the cold start');
  // Its own process group, so that SIGINT can go to the whole group as a terminal's Ctrl-C does:
  // Postgres gets it too and stops by itself, which the service must take in its stride.
  const serve = new Serve(env, { ownProcessGroup: true });
  const warmMs = await serve.healthy(api.baseUrl);
  t.log(`warm start: ${(warmMs / 1000).toFixed(1)}s to a healthy /api/health`);

  const org = await api.get(`/api/v1/organizations/${state.org}`);
  t.is(org.status, 200, org.text);
  t.is(org.body.name, state.org);
  const me = await api.get('/api/v1/users/me', { token: state.token });
  t.is(me.status, 200, 'the API token of the first run still works');
  t.like(me.body, { username: ADMIN.username, sysadmin: true });
  const login = await api.login(ADMIN.username, ADMIN.password);
  t.is(login.status, 200, login.text);
  t.false(
    serve.logs.some((l) => l.msg === 'initial sysadmin created'),
    'the admin is not created twice',
  );

  const tree = treeWithEngines(t, serve);
  process.kill(-serve.pid, 'SIGINT');
  await assertCleanStop(t, serve, tree, ports);
});

test.serial('a request in flight when SIGTERM arrives still gets its answer; new connections are refused', async (t) => {
  const serve = new Serve(env);
  await serve.healthy(api.baseUrl);
  const tree = treeWithEngines(t, serve);

  // Login spends ~0.4 s in scrypt: long enough to be caught in the middle by the signal.
  const body = JSON.stringify({ username: ADMIN.username, password: ADMIN.password });
  const reply = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request(
      `${api.baseUrl}/api/v1/auth/login`,
      { method: 'POST', agent: false, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    // Sent in full; a moment later the server has read it and sits in scrypt when the signal comes.
    req.on('finish', () => setTimeout(() => serve.child.kill('SIGTERM'), 150));
    req.end(body);
  });
  await serve.until('"shutting down" in the log', () => serve.logged('shutting down'), 10_000);

  const late = await new Promise<string>((resolve) => {
    const req = http.get(`${api.baseUrl}/api/health`, { agent: false }, (res) => resolve(`answered ${res.statusCode}`));
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
  t.is(late, 'ECONNREFUSED', 'a new connection after the signal is refused');

  const inFlight = await reply;
  t.is(inFlight.status, 200, inFlight.text);
  await assertCleanStop(t, serve, tree, ports);
  const shutdownAt = serve.logs.findIndex((l) => l.msg === 'shutting down');
  const loginAt = serve.logs.findIndex((l) => l.msg === 'request' && l.path === '/api/v1/auth/login');
  t.true(shutdownAt >= 0 && loginAt > shutdownAt, `the login was answered after the signal\n${serve.describe()}`);
});

test.serial('SIGTERM during start-up stops what has started and exits 0', async (t) => {
  const serve = new Serve(env);
  // Postgres is up and the Temporal dev server has just started; the worker and HTTP are still to come.
  await serve.until('"Temporal dev server started" in the log', () => serve.logged('Temporal dev server started'));
  const tree = treeWithEngines(t, serve);
  serve.child.kill('SIGTERM');
  await assertCleanStop(t, serve, tree, ports);
});

test.serial('after a crash (SIGKILL) the next start stops the engines left behind and carries on with the data', async (t) => {
  const crashed = new Serve(env);
  await crashed.healthy(api.baseUrl);
  const orphans = treeWithEngines(t, crashed).filter((p) => p.comm === 'postgres' || p.comm === 'temporal');
  crashed.child.kill('SIGKILL');
  await crashed.exit();
  t.true(orphans.some(isAlive), 'SIGKILL leaves the engines running');

  const next = new Serve(env);
  await next.healthy(api.baseUrl);
  t.true(next.logged('stopping the PostgreSQL left running by an earlier run'), next.describe());
  t.true(next.logged('stopping the Temporal dev server left running by an earlier run'), next.describe());
  t.deepEqual(
    orphans.filter(isAlive).map((p) => `${p.comm} (${p.pid})`),
    [],
    'the leftovers are gone',
  );
  t.is((await api.get(`/api/v1/organizations/${state.org}`)).status, 200, 'the data survived');

  const tree = treeWithEngines(t, next);
  next.child.kill('SIGTERM');
  await assertCleanStop(t, next, tree, ports);
});
