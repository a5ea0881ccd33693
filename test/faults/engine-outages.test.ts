import net from 'node:net';
import process from 'node:process';
import test from 'ava';
import { createLogger } from '../../src/logger.ts';
import { startEmbeddedPostgres } from '../../src/runtime/embedded-postgres.ts';
import type { RunningAlmanac } from '../../src/runtime/almanac.ts';
import { ApiClient } from '../helpers/client.ts';
import { benchToken, startAppOn, startEngines, type Engines } from '../helpers/engines.ts';
import { settledPipeline } from '../helpers/pipeline.ts';

/**
 * Fault injection (issue 16): each engine under the app goes away for a while, in the middle of use:
 * PostgreSQL stopped, MinIO stopped, Temporal frozen (SIGSTOP, so its connections hang rather than fail).
 * While a part is down every request answers within the client's patience: what needs the part gets a
 * 503 problem without internals, what does not still works, and /api/health names the part. After the
 * part is back everything works again, and the file a failed upload was to replace is still the one
 * served. The matrix of fault × operation → outcome is logged.
 *
 * This file starts engines of its own: stopping the suite's would break the other files.
 */

const log = createLogger(process.env.TEST_ENGINE_LOG_LEVEL ?? 'silent');
const PATIENCE_MS = 20_000;
const CSV = Buffer.from('city,people\nLyon,522000\nNantes,320000\n');

let engines: Engines;
let almanac: RunningAlmanac;
let api: ApiClient;
let token: string;
let resourceId: string;

test.before(async () => {
  engines = await startEngines('faults', log, { minio: true });
  almanac = await startAppOn(engines, { FETCH_ALLOW_PRIVATE_NETWORKS: 'true', EMBEDDINGS_PROVIDER: 'none' }, log);
  api = new ApiClient(almanac.url);
  token = await benchToken(almanac);
  const auth = { token };
  await api.post('/api/v1/organizations', { name: 'faults-org' }, auth);
  const dataset = await api.post(
    '/api/v1/packages',
    {
      name: 'faults-data',
      ownerOrg: 'faults-org',
      licenseId: 'cc-by-4.0',
      resources: [{ urlType: 'upload', name: 'Cities', format: 'CSV' }],
    },
    auth,
  );
  resourceId = dataset.body.resources[0].id;
  await upload(CSV);
  await settledPipeline(api, resourceId, auth, { succeeded: true });
});
test.after.always(() => engines?.stop());

async function upload(bytes: Buffer) {
  const reply = await fetch(`${almanac.url}/api/v1/resources/${resourceId}/upload`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/csv' },
    body: new Uint8Array(bytes),
    signal: AbortSignal.timeout(PATIENCE_MS),
  });
  return { status: reply.status, text: await reply.text() };
}

type Outcome = number | 'hang' | 'reset';

/** The operations of the matrix, each answered within PATIENCE_MS or counted as a hang. */
const OPERATIONS: Record<string, () => Promise<{ status: number; text: string }>> = {
  'read a dataset': () => call('GET', '/api/v1/packages/faults-data'),
  search: () => call('GET', '/api/v1/packages?q=cities&semantic=false'),
  'upload a file': () => upload(Buffer.from('city,people\nBrest,140000\n')),
  'download a file': () => call('GET', `/api/v1/resources/${resourceId}/download`),
  'run the pipeline': () => call('POST', `/api/v1/resources/${resourceId}/run-pipeline`),
  'site settings': () => call('GET', '/api/v1/site/settings'),
};

async function call(method: string, path: string) {
  const reply = await fetch(`${almanac.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(PATIENCE_MS),
  });
  return { status: reply.status, text: await reply.text() };
}

async function outcomes() {
  const row: Record<string, Outcome> = {};
  const bodies: Record<string, string> = {};
  for (const [name, operation] of Object.entries(OPERATIONS)) {
    try {
      const reply = await operation();
      row[name] = reply.status;
      bodies[name] = reply.text;
    } catch (err) {
      row[name] = (err as Error).name === 'TimeoutError' ? 'hang' : 'reset';
    }
  }
  return { row, bodies };
}

/**
 * Keeps a stopped engine's port while it is down, as a listener that drops every connection: the app sees
 * the engine gone (a reset), and no test file running beside this one can be given the port by the
 * system and then meet the engine when it comes back.
 */
async function holdPort(port: number) {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    release: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}

async function health() {
  const reply = await fetch(`${almanac.url}/api/health`, { signal: AbortSignal.timeout(PATIENCE_MS) });
  return (await reply.json()) as { status: string; components: Record<string, string> };
}

/** While a part is down: nothing hangs or resets, no 500, every 5xx is a problem without internals. */
function assertClearWhileDown(t: import('ava').ExecutionContext, fault: string, { row, bodies }: Awaited<ReturnType<typeof outcomes>>) {
  t.log(`${fault}: ${JSON.stringify(row)}`);
  for (const [name, outcome] of Object.entries(row)) {
    t.true(typeof outcome === 'number', `${fault} × ${name}: ${outcome}`);
    t.not(outcome, 500, `${fault} × ${name}: ${bodies[name]?.slice(0, 300)}`);
    if (typeof outcome === 'number' && outcome >= 500) {
      t.is(outcome, 503, `${fault} × ${name}`);
      t.regex(bodies[name] ?? '', /"code":"\w+_unavailable"/, `${fault} × ${name}: ${bodies[name]?.slice(0, 300)}`);
      t.notRegex(bodies[name] ?? '', /ECONN|127\.0\.0\.1|at \w+ \(/, `${fault} × ${name}`);
    }
  }
}

async function assertRecovered(t: import('ava').ExecutionContext, fault: string) {
  const deadline = Date.now() + 60_000;
  let last = await outcomes();
  while (Object.values(last.row).some((o) => typeof o !== 'number' || o >= 300) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    last = await outcomes();
  }
  t.log(`after ${fault}: ${JSON.stringify(last.row)}`);
  for (const [name, outcome] of Object.entries(last.row))
    t.true(typeof outcome === 'number' && outcome < 300, `after ${fault} × ${name}: ${outcome}`);
  t.is((await health()).status, 'ok');
  await settledPipeline(api, resourceId, { token }, { succeeded: true });
}

test.serial('MinIO stopped: files answer 503 storage_unavailable, everything else works, and the served file is unchanged', async (t) => {
  t.timeout(4 * 60_000);
  const before = (await api.get(`/api/v1/resources/${resourceId}`, { token })).body;
  await engines.minio!.stop();
  const minioPort = await holdPort(Number(new URL(engines.minio!.endpoint).port));
  try {
    const down = await outcomes();
    assertClearWhileDown(t, 'minio stopped', down);
    t.is(down.row['read a dataset'], 200);
    t.is(down.row['upload a file'], 503);
    t.is(down.row['download a file'], 503);
    t.like(await health(), { components: { storage: 'down' } });
    t.like((await api.get(`/api/v1/resources/${resourceId}`, { token })).body, { size: before.size, hash: before.hash });
  } finally {
    await minioPort.release();
    await engines.minio!.restart();
  }
  await assertRecovered(t, 'minio back');
});

test.serial('PostgreSQL stopped: requests answer 503 database_unavailable at once, and the service recovers when it is back', async (t) => {
  t.timeout(4 * 60_000);
  const url = new URL(engines.pg.url('postgres'));
  await engines.pg.stop();
  const pgPort = await holdPort(Number(url.port));
  try {
    const down = await outcomes();
    assertClearWhileDown(t, 'postgres stopped', down);
    t.is(down.row['read a dataset'], 503);
    t.like(await health(), { components: { database: 'down' } });
  } finally {
    await pgPort.release();
    const again = await startEmbeddedPostgres(`${engines.dir}/pg`, Number(url.port), log);
    engines.onStop(() => again.stop());
  }
  await assertRecovered(t, 'postgres back');
});

test.serial(
  'Temporal frozen (SIGSTOP): starting a job answers 503 jobs_unavailable within its deadline, reads work, and jobs run again after SIGCONT',
  async (t) => {
    t.timeout(4 * 60_000);
    process.kill(engines.temporal.pid, 'SIGSTOP');
    try {
      const down = await outcomes();
      assertClearWhileDown(t, 'temporal frozen', down);
      t.is(down.row['read a dataset'], 200);
      t.is(down.row['run the pipeline'], 503);
    } finally {
      process.kill(engines.temporal.pid, 'SIGCONT');
    }
    await assertRecovered(t, 'temporal back');
  },
);
