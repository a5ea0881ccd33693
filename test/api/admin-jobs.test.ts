import type { Client } from '@temporalio/client';
import test from 'ava';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { jobsQuery } from '../../src/temporal/job-visibility.ts';
import { pipelineWorkflowId } from '../../src/domain/jobs/ids.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { onlySysadmins, type Call } from '../helpers/access.ts';
import { as, type Auth, type Reply } from '../helpers/client.ts';
import { isProblem } from '../helpers/problem.ts';

/**
 * GET /admin/jobs, /admin/jobs/stats and POST /admin/jobs/enqueue-all over HTTP, against the jobs this
 * app really runs on the suite's Temporal server. The app reaches Temporal through a TCP relay that
 * the last test cuts, to see the service answer 503 while Temporal is out of reach.
 *
 * The tests run in order: the job list is shared state, and each test counts what the earlier left.
 */

let app: TestApp;
let relay: TcpRelay;
let files: http.Server;
let filesUrl: string;
let client: Client;
const admin = (): Auth => ({ token: app.adminToken });

test.before(async () => {
  const [host, port] = process.env.TEST_TEMPORAL_ADDRESS!.split(':');
  relay = new TcpRelay({ host, port: Number(port) });
  await relay.open();
  // Links point at this server, so that a pipeline that downloads them finds real bytes.
  files = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/csv' }).end('a,b\n1,2\n'));
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  app = await startTestApp({ TEMPORAL_ADDRESS: `127.0.0.1:${relay.port}`, FETCH_ALLOW_PRIVATE_NETWORKS: 'true' });
  client = app.almanac.services.jobs.client;
});
test.after.always(async () => {
  await relay?.open();
  await app?.stop();
  files?.close();
  await relay?.close();
});

/** Polls until `done` holds: visibility is eventually consistent. */
async function eventually(probe: () => Promise<Reply>, done: (r: Reply) => boolean, timeoutMs = 30_000): Promise<Reply> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await probe();
    if (done(reply) || Date.now() > deadline) return reply;
    await new Promise((r) => setTimeout(r, 150));
  }
}

const jobs = (query = '') => app.api.get(`/api/v1/admin/jobs${query}`, admin());
const rowsOf = (reply: Reply) => (reply.body?.results ?? []) as Record<string, any>[];

test.serial('every jobs endpoint is for sysadmins only: anonymous is 401, a user 403', async (t) => {
  const user = await app.api.newUser('jobs-outsider');
  const calls: Call[] = [
    ['GET', '/api/v1/admin/jobs'],
    ['GET', '/api/v1/admin/jobs/stats'],
    ['POST', '/api/v1/admin/jobs/enqueue-all'],
  ];
  await onlySysadmins(t, app.api, calls, [as(user)]);
  t.is((await jobs('?type=enqueue-all')).body.count, 0, 'the refused POST started nothing');
});

test.serial('deleting a draft and publishing a dataset show up as completed delete-draft and publish-sync jobs', async (t) => {
  const user = await app.api.newUser('jobs-drafter');
  const draft = await app.api.post('/api/v1/packages/drafts', { title: 'short-lived' }, { token: user.token });
  t.is(draft.status, 201, draft.text);
  t.is((await app.api.delete(`/api/v1/packages/${draft.body.id}`, { token: user.token })).status, 204);

  await app.api.post('/api/v1/organizations', { name: 'jobs-org' }, admin());
  const published = await app.api.post('/api/v1/packages', { name: 'jobs-published', ownerOrg: 'jobs-org', licenseId: 'cc-by' }, admin());
  t.is(published.status, 201, published.text);
  // Creating answers once the dataset is found by keywords; publishing it again runs the whole sync as a job.
  t.is((await app.api.post(`/api/v1/packages/${published.body.id}/publish`, {}, admin())).status, 200);

  const deletion = `delete-draft-${draft.body.id}`;
  const sync = `publish-sync-${published.body.id}`;
  const list = await eventually(
    () => jobs('?limit=100'),
    (r) => [deletion, sync].every((id) => rowsOf(r).some((row) => row.workflowId === id && row.status === 'completed')),
  );
  const byId = (id: string) => rowsOf(list).find((row) => row.workflowId === id)!;

  const deleted = byId(deletion);
  t.like(deleted, { type: 'delete-draft', status: 'completed', packageId: draft.body.id });
  t.false('error' in deleted, 'only failed runs carry an error');
  t.false('resourceId' in deleted);
  t.regex(deleted.runId, /^[0-9a-f-]{36}$/);
  t.true(Date.parse(deleted.startedAt) <= Date.parse(deleted.closedAt));
  t.is(deleted.uiUrl, `http://localhost:8233/namespaces/default/workflows/${deletion}/${deleted.runId}/history`);

  t.like(byId(sync), { type: 'publish-sync', status: 'completed', packageId: published.body.id });
});

test.serial('a failed job carries the failure message, down to its cause', async (t) => {
  // A real workflow of the app given an id it cannot handle: its activity fails in Postgres.
  const workflowId = 'publish-sync-not-a-dataset';
  await t.throwsAsync(client.workflow.execute('publishSyncWorkflow', { taskQueue: app.taskQueue, workflowId, args: ['not-a-uuid'] }));
  const failed = await eventually(
    () => jobs('?status=failed'),
    (r) => rowsOf(r).some((row) => row.workflowId === workflowId),
  );
  const row = rowsOf(failed).find((r) => r.workflowId === workflowId)!;
  t.like(row, { type: 'publish-sync', status: 'failed' });
  t.false('packageId' in row, 'the id names no dataset');
  t.regex(row.error, /^Activity task failed: [\s\S]*invalid input syntax for type uuid/);
  t.true(rowsOf(failed).every((r) => r.status === 'failed'));
});

test.serial('filters and paging: count agrees with the results, pages add up to the whole list', async (t) => {
  const user = await app.api.newUser('jobs-pager');
  for (let i = 0; i < 3; i++) {
    const draft = await app.api.post('/api/v1/packages/drafts', { title: `page ${i}` }, { token: user.token });
    t.is((await app.api.delete(`/api/v1/packages/${draft.body.id}`, { token: user.token })).status, 204);
  }
  const all = await eventually(
    () => jobs('?type=delete-draft&limit=100'),
    (r) => r.body.count === 4 && rowsOf(r).length === 4,
  );
  t.is(all.status, 200, all.text);
  t.like(all.body, { count: 4, offset: 0, limit: 100 });
  t.true(rowsOf(all).every((row) => row.type === 'delete-draft' && row.status === 'completed'));

  const paged: string[] = [];
  for (let offset = 0; offset < 4; offset++) {
    const one = await jobs(`?type=delete-draft&limit=1&offset=${offset}`);
    t.like(one.body, { count: 4, offset, limit: 1 });
    t.is(rowsOf(one).length, 1);
    paged.push(rowsOf(one)[0].runId);
  }
  t.deepEqual(
    paged,
    rowsOf(all).map((row) => row.runId),
  );
  const past = await jobs('?type=delete-draft&limit=10&offset=4');
  t.like(past.body, { count: 4, offset: 4, limit: 10, results: [] });

  const everything = await jobs('?limit=100');
  t.is(everything.body.count, rowsOf(everything).length);
  t.is(everything.body.count, 4 + 1 + 1, 'four draft deletions, a publish-sync, the failed one');
  t.deepEqual(rowsOf(await jobs('?type=purge-org')), []);
  t.is((await jobs('?type=publish-sync&status=completed')).body.count, 1);
  t.is((await jobs('?type=publish-sync&status=failed')).body.count, 1);
  t.is((await jobs()).body.limit, 20, 'the default page');
});

test.serial('unknown filter values and out-of-range paging are 400 naming the parameter', async (t) => {
  for (const [query, field] of [
    ['?type=bogus', 'type'],
    ['?type=pipelineWorkflow', 'type'],
    ['?status=paused', 'status'],
    ['?status=RUNNING', 'status'],
    ['?limit=101', 'limit'],
    ['?limit=0', 'limit'],
    ['?offset=-1', 'offset'],
  ]) {
    const reply = await jobs(query);
    isProblem(t, reply, 400, 'invalid_parameters');
    t.deepEqual(
      reply.body.errors.map((e: { path: string }) => e.path),
      [field],
      query,
    );
  }
});

test.serial('stats count jobs per type and status, in agreement with the list', async (t) => {
  const stats = await app.api.get('/api/v1/admin/jobs/stats', admin());
  t.is(stats.status, 200, stats.text);
  const { total, byStatus, byType } = stats.body;
  t.is(total, (await jobs()).body.count);
  t.deepEqual(byStatus, { running: 0, completed: 5, failed: 1, canceled: 0, terminated: 0, timed_out: 0, continued_as_new: 0 });
  t.deepEqual(Object.keys(byType).sort(), [
    'delete-all-data',
    'delete-draft',
    'enqueue-all',
    'harvest',
    'link-check',
    'pipeline',
    'publish-sync',
    'purge-dataset',
    'purge-org',
    'reindex-metadata',
    'sweep-storage',
    'vector-backlog',
  ]);
  t.like(byType['delete-draft'], { total: 4, completed: 4, failed: 0 });
  t.like(byType['publish-sync'], { total: 2, completed: 1, failed: 1 });
  t.like(byType.pipeline, { total: 0, running: 0 });
  for (const [type, counts] of Object.entries(byType) as [string, Record<string, number>][]) {
    const { total: typeTotal, ...statuses } = counts;
    t.is(
      Object.values(statuses).reduce((a, b) => a + b, 0),
      typeTotal,
      type,
    );
  }
});

test.serial(
  'enqueue-all starts one pipeline per resource with something to process, pages with continue-as-new, joins a running pipeline and keeps to its concurrency',
  async (t) => {
    await app.api.post('/api/v1/organizations', { name: 'enq-org' }, admin());
    const link = (name: string) => ({ name, url: `${filesUrl}/${name}.csv`, format: 'CSV' });
    const active = await app.api.post(
      '/api/v1/packages',
      {
        name: 'enq-active',
        ownerOrg: 'enq-org',
        licenseId: 'cc-by',
        resources: [link('a'), link('b'), link('c'), { name: 'never uploaded', urlType: 'upload', format: 'CSV' }],
      },
      admin(),
    );
    t.is(active.status, 201, active.text);
    const draft = await app.api.post('/api/v1/packages/drafts', { title: 'enq draft', ownerOrg: 'enq-org' }, admin());
    t.is(draft.status, 201, draft.text);
    const draftLink = await app.api.post(`/api/v1/packages/${draft.body.id}/resources`, link('d'), admin());
    const draftUpload = await app.api.post(
      `/api/v1/packages/${draft.body.id}/resources`,
      { name: 'uploaded', urlType: 'upload', format: 'CSV' },
      admin(),
    );
    const uploaded = await app.api.request('POST', `/api/v1/resources/${draftUpload.body.id}/upload`, 'x,y\n3,4\n', {
      ...admin(),
      headers: { 'Content-Type': 'text/csv' },
    });
    t.is(uploaded.status, 200, uploaded.text);
    const gone = await app.api.post(
      '/api/v1/packages',
      { name: 'enq-deleted', ownerOrg: 'enq-org', licenseId: 'cc-by', resources: [link('e')] },
      admin(),
    );
    t.is((await app.api.delete('/api/v1/packages/enq-deleted', admin())).status, 204);

    const [a, b, c, unuploaded] = active.body.resources.map((r: { id: string }) => r.id);
    const eligible = [a, b, c, draftLink.body.id, draftUpload.body.id];
    const notEligible = [unuploaded, gone.body.resources[0].id];

    // Pipelines stand in for the work enqueue-all hands out: whatever they do (finish, fail, or wait on
    // a worker that lacks them), the test ends each one it finds running, as an operator could.
    const ended = new Set([...eligible, ...notEligible]);
    const runningPipelines = async () => {
      const states = await Promise.all(
        [...ended].map(async (id) => {
          const handle = client.workflow.getHandle(pipelineWorkflowId(id));
          return { handle, running: (await handle.describe().catch(() => undefined))?.status.name === 'RUNNING' };
        }),
      );
      return states.filter((s) => s.running).map((s) => s.handle);
    };
    const startEnder = () => {
      let ending = true;
      const loop = (async () => {
        while (ending) {
          await Promise.all((await runningPipelines()).map((handle) => handle.terminate('ended by the test').catch(() => {})));
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      return async () => {
        ending = false;
        await loop;
      };
    };
    let stopEnder = startEnder();
    // The upload started a pipeline of its own: it must be over before enqueue-all looks.
    while ((await runningPipelines()).length > 0) await new Promise((r) => setTimeout(r, 50));

    // A pipeline already running for `a` (queued where no worker polls) must be joined, not started again.
    // The ender stops first, so no sweep that began before `a` left the set can end it.
    await stopEnder();
    ended.delete(a);
    stopEnder = startEnder();
    const runningElsewhere = await client.workflow.start('pipelineWorkflow', {
      taskQueue: `nobody-polls-${app.taskQueue}`,
      workflowId: pipelineWorkflowId(a),
      args: [a],
    });
    try {
      const handle = await client.workflow.start('enqueueAllWorkflow', {
        taskQueue: app.taskQueue,
        workflowId: 'enqueue-all',
        args: [{ pageSize: 2, pagesPerRun: 1, concurrency: 1 }],
      });
      const counts = await handle.result();
      t.like(counts, { started: 4, joined: 1 });
      t.is(counts.succeeded + counts.failed, 4);
    } finally {
      await stopEnder();
      await runningElsewhere.terminate('test over').catch(() => {});
    }

    // The children: exactly the eligible resources but the joined one, each started by enqueue-all.
    const children: { workflowId: string; start: number; close: number }[] = [];
    for await (const info of client.workflow.list({ query: jobsQuery(app.taskQueue, { type: 'pipeline' }) })) {
      if (info.parentExecution?.workflowId === 'enqueue-all') {
        children.push({ workflowId: info.workflowId, start: info.startTime.getTime(), close: info.closeTime?.getTime() ?? Infinity });
      }
    }
    t.deepEqual(children.map((ch) => ch.workflowId).sort(), [b, c, draftLink.body.id, draftUpload.body.id].map(pipelineWorkflowId).sort());
    // concurrency 1: no child started before the one before it had closed.
    const ordered = children.sort((x, y) => x.start - y.start);
    for (let i = 1; i < ordered.length; i++) t.true(ordered[i].start >= ordered[i - 1].close, `child ${i} overlaps`);

    // Five resources, two per page, one page per run: three runs, the first two continued as new.
    const runs = await eventually(
      () => jobs('?type=enqueue-all'),
      (r) => r.body.count === 3 && rowsOf(r).every((row) => row.status !== 'running'),
    );
    t.deepEqual(
      rowsOf(runs)
        .map((row) => row.status)
        .sort(),
      ['completed', 'continued_as_new', 'continued_as_new'],
    );
    t.true(rowsOf(runs).every((row) => row.workflowId === 'enqueue-all'));
    t.is((await jobs('?type=enqueue-all&status=continued_as_new')).body.count, 2);

    // The same children through the API, each naming its resource.
    const pipelines = await eventually(
      () => jobs('?type=pipeline&limit=100'),
      (r) => rowsOf(r).filter((row) => row.status !== 'running').length >= 4,
    );
    for (const child of ordered) {
      const row = rowsOf(pipelines).find((r) => r.workflowId === child.workflowId);
      t.like(row, { type: 'pipeline', resourceId: child.workflowId.replace(/^pipeline-/, '') });
    }
    t.false(
      rowsOf(pipelines).some((row) => row.workflowId === pipelineWorkflowId(a)),
      'the joined run is on another task queue',
    );
  },
);

test.serial('POST /admin/jobs/enqueue-all answers 202 with the run; a second request joins it', async (t) => {
  const [first, second] = await Promise.all([
    app.api.post('/api/v1/admin/jobs/enqueue-all', undefined, admin()),
    app.api.post('/api/v1/admin/jobs/enqueue-all', undefined, admin()),
  ]);
  t.is(first.status, 202, first.text);
  t.is(second.status, 202, second.text);
  t.like(first.body, { workflowId: 'enqueue-all', uiUrl: 'http://localhost:8233/namespaces/default/workflows/enqueue-all' });
  t.is(second.body.runId, first.body.runId);
  const run = client.workflow.getHandle('enqueue-all', first.body.runId);
  t.is((await run.describe()).type, 'enqueueAllWorkflow');
  await run.terminate('test over').catch(() => {});
});

test.serial('with Temporal out of reach, the job endpoints answer 503 jobs_unavailable, and recover with it', async (t) => {
  await relay.cut();
  try {
    const replies = await Promise.all([
      jobs(),
      app.api.get('/api/v1/admin/jobs/stats', admin()),
      app.api.post('/api/v1/admin/jobs/enqueue-all', undefined, admin()),
    ]);
    for (const reply of replies) isProblem(t, reply, 503, 'jobs_unavailable');
  } finally {
    await relay.open();
  }
  const back = await eventually(
    () => jobs(),
    (r) => r.status === 200,
  );
  t.is(back.status, 200, back.text);
  // The SDK's retries of the calls that answered 503 may still be waiting: closing the app now is what
  // the gateway's close() must survive (test/temporal/gateway.test.ts), and the file's after hook does it.
});

/**
 * A TCP relay to Temporal that a test can cut (closing every connection and refusing new ones) and reopen
 * on the same port. The first open takes a port from the kernel as it listens: a port found free and
 * listened on later can be taken in between by any connection of the suite.
 */
class TcpRelay {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}

  async open() {
    if (this.server) return;
    const server = net.createServer((inbound) => {
      const outbound = net.connect(this.target);
      for (const [from, to] of [
        [inbound, outbound],
        [outbound, inbound],
      ]) {
        this.sockets.add(from);
        from.on('error', () => to.destroy());
        from.on('close', () => {
          this.sockets.delete(from);
          to.destroy();
        });
        from.pipe(to);
      }
    });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async cut() {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  }

  close = () => this.cut();
}
