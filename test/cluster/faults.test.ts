/**
 * Faults in the production shape (test/cluster/cluster.ts), each with what must hold:
 * - kill -9 of an API process under 50 clients: only the requests in flight on it fail, the balancer
 *   moves on, and no dataset is half-written;
 * - kill -9 of the worker running a harvest, a pipeline and an organization purge: another worker
 *   finishes each, once (records, files and points counted);
 * - a token revoked through one API process is refused by the other at once, and a dataset published
 *   through one is found through the other (the delay measured);
 * - Qdrant stopped under searches: keyword-only answers, no 5xx; back, and the writes made meanwhile reach it.
 */
import test from 'ava';
import fs from 'node:fs/promises';
import path from 'node:path';
import { until } from '../helpers/app.ts';
import { startFileServer } from '../helpers/file-server.ts';
import { settledPipeline } from '../helpers/pipeline.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';
import { availableBackends, startCluster, type Cluster, type Member } from './cluster.ts';
import { admin, getFrom, publishDataset, vectorsCaughtUp } from './flows.ts';
import { runSoak } from './soak.ts';

for (const backend of availableBackends()) {
  let cluster: Cluster;

  test.before(async () => {
    cluster = await startCluster(backend);
    const org = await cluster.api.post('/api/v1/organizations', { name: 'faults', title: 'Faults' }, admin(cluster));
    if (org.status !== 201) throw new Error(org.text);
    await publishDataset(cluster, 'faults', 'tide-gauges', 'Tide gauge readings');
  });
  test.after.always(async () => cluster?.stop());

  test.serial(
    `[${backend}] kill -9 of one API process under 50 clients: only its requests in flight fail, nothing is half-written`,
    async (t) => {
      t.timeout(3 * 60_000);
      const victim = cluster.apis[0]!;
      t.teardown(async () => {
        if (cluster.apis[0] === victim) await cluster.restartApi(0);
      });
      const soak = await runSoak(cluster, { clients: 50, seconds: 12, killAfterMs: 3000, kill: () => cluster.kill(victim, 'SIGKILL') });
      const { outcomes, killedAt, goneAt } = soak;
      const failed = outcomes.filter((o) => o.status === 0 || o.status >= 500);
      // A request sent between the signal and the process's end may have reached it. Once it is gone, the
      // balancer holds no connection to it (deploy/haproxy.cfg: one per request), so a request's connection
      // to it is refused and goes to the other process: none sent later may fail.
      const after = outcomes.filter((o) => o.started > goneAt);
      const lateFailures = failed.filter((f) => f.started > killedAt);
      t.log(
        `${outcomes.length} requests; ${failed.length} failed, all sent before the process was gone, ${Math.round(goneAt - killedAt)} ms after the signal (${lateFailures.length} after the signal); ${after.length} sent later, all answered`,
      );
      const unexplained = failed.filter((f) => f.started > goneAt || f.ended < killedAt);
      t.deepEqual(
        unexplained.map((f) => ({ ...f, started: f.started - killedAt, ended: f.ended - killedAt })),
        [],
        `failed but not in flight at the kill (times from the kill); the balancer said of them:\n${cluster.balancerLog
          .filter((l) => unexplained.some((f) => l.includes(`{${f.id}}`)) || /WARNING/.test(l))
          .join('\n')}`,
      );
      t.true(failed.length <= 50, 'at most one request of each client was in flight');
      // Under the whole suite's load a request takes seconds: half the clients' worth after the kill is enough to tell.
      t.true(after.length >= 25, `the balancer moved on: ${after.length} requests sent after the kill`);
      t.true(
        after.every((o) => o.status > 0 && o.status < 500),
        JSON.stringify(after.filter((o) => o.status === 0 || o.status >= 500).slice(0, 5)),
      );

      // Every dataset a client was told is created is there, whole; one whose answer was lost is whole or
      // absent. A creation commits, then writes its search documents: one cut between the two is written by
      // the next vector backlog pass (the other process's creations announce it), no restart needed.
      const creates = outcomes.filter((o) => o.name);
      type Row = { name: string; resources: number; indexed: boolean; state: string };
      let stored = new Map<string, Row>();
      await until(
        'every dataset the soak created is whole',
        async () => {
          const rows = await cluster.sql<Row>(
            `select d.name, d.state, count(r.id)::int as resources, d.search_vector is not null as indexed
             from datasets d left join resources r on r.dataset_id = d.id where d.name like 'soak-%' group by d.id`,
          );
          stored = new Map(rows.map((r) => [r.name, r]));
          return rows.every((r) => r.indexed);
        },
        60_000,
      ).catch(() => undefined);
      for (const create of creates) {
        const row = stored.get(create.name!);
        if (create.status === 201) t.truthy(row, `${create.name} was answered 201`);
        if (row) t.like(row, { state: 'active', resources: 1, indexed: true }, `${create.name} (answered ${create.status})`);
      }
      t.is(
        stored.size,
        new Set(creates.filter((c) => stored.has(c.name!)).map((c) => c.name)).size,
        'no dataset the clients did not ask for',
      );
      const lost = creates.filter((c) => c.status !== 201 && stored.has(c.name!));
      t.log(`${lost.length} creations committed whose answer was lost with the process (now whole and found)`);

      await cluster.restartApi(0);
      await until('the balancer sends to the restarted API process again', async () => {
        const seen = await Promise.all([0, 1, 2, 3].map(() => fetch(`${cluster.url}/api/v1/packages?limit=1`).then((r) => r.status)));
        return seen.every((s) => s === 200);
      });
    },
  );

  test.serial(
    `[${backend}] kill -9 of the worker running a harvest, a pipeline and a purge: another worker finishes each, once`,
    async (t) => {
      t.timeout(8 * 60_000);
      const auth = admin(cluster);

      // A harvest of GSA's 800-odd records, a 20 MB pipeline, and the purge of an organization with files.
      const raw = JSON.parse(await fs.readFile(path.join(SHARED_DATA, 'dcat-us', 'gsa.json'), 'utf8')) as { dataset: unknown[] };
      const files = await startFileServer({
        '/data.json': (_req, res) => void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(raw)),
      });
      t.teardown(() => files.close());
      await cluster.api.post('/api/v1/organizations', { name: 'gsa' }, auth);
      const source = await cluster.api.post(
        '/api/v1/admin/harvest-sources',
        { name: 'gsa', type: 'dcat-us', url: `${files.url}/data.json`, organization: 'gsa' },
        auth,
      );
      t.is(source.status, 201, source.text);

      await cluster.api.post('/api/v1/organizations', { name: 'doomed' }, auth);
      const doomed: string[] = [];
      const doomedFiles: string[] = [];
      for (let i = 0; i < 4; i++) {
        const set = await publishDataset(cluster, 'doomed', `doomed-${i}`, `Doomed survey ${i}`);
        doomed.push(set.id);
        doomedFiles.push(set.resources[0].id);
        const up = await fetch(`${cluster.url}/api/v1/resources/${set.resources[0].id}/upload`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${cluster.adminToken}`, 'Content-Type': 'text/csv' },
          body: `a,b\n${i},2\n`,
        });
        t.is(up.status, 200);
        await settledPipeline(cluster.api, set.resources[0].id, auth, { succeeded: true });
      }

      const big = await publishDataset(cluster, 'faults', 'big-readings', 'Big sensor readings');
      const bigResource = big.resources[0].id as string;
      const rows = Array.from(
        { length: 400_000 },
        (_, i) => `${i},sensor-${i % 97},${(i * 7919) % 100_000}.25,2024-0${(i % 9) + 1}-1${i % 10}`,
      );
      const csv = `id,sensor,reading,day\n${rows.join('\n')}\n`;

      // The jobs wait in Temporal's queue with no worker; a worker started then takes every one of them at
      // once (whatever the earlier workers were busy with), and is killed. Another then does the rerun.
      const earlier = cluster.workers.splice(0);
      for (const worker of earlier)
        if (worker.child.exitCode !== null || worker.child.signalCode !== null)
          t.log(`${worker.name} had exited before this test: ${worker.logs.slice(-5).join('\n')}`);
      await Promise.all(earlier.map((worker) => cluster.kill(worker, 'SIGTERM')));

      const harvest = cluster.api.post(`/api/v1/admin/harvest-sources/${source.body.id}/run`, undefined, auth);
      const upload = fetch(`${cluster.url}/api/v1/resources/${bigResource}/upload`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${cluster.adminToken}`, 'Content-Type': 'text/csv' },
        body: csv,
      });
      t.is((await cluster.api.delete('/api/v1/organizations/doomed', auth)).status, 204);
      const purge = await cluster.api.post('/api/v1/organizations/doomed/purge', undefined, auth);
      t.is(purge.status, 202, purge.text);
      const run = await harvest;
      t.is(run.status, 202, run.text);
      t.is((await upload).status, 200);

      // Each job has a step running on the victim when it dies.
      const victim = await cluster.startWorker();
      const kinds = ['harvest', 'pipeline', 'purge-org'];
      const { running, polls } = await stepsHeldBy(cluster, victim, kinds);
      t.log(`steps running when the worker was killed: ${polls.at(-1) ?? 'none seen'}`);
      const alive = victim.child.exitCode === null && victim.child.signalCode === null;
      await cluster.kill(victim, 'SIGKILL');
      cluster.workers.splice(cluster.workers.indexOf(victim), 1);
      await cluster.startWorker();
      const cut = kinds.filter((kind) => running.some((id) => id.startsWith(kind)));
      t.true(
        cut.length >= 2,
        `at least two of the jobs were cut mid-step: ${running.join(', ')}\nthe worker was ${alive ? 'alive' : 'already gone'}; polls of Temporal:\n${polls.join('\n')}\nthe worker's last lines:\n${victim.logs.slice(-15).join('\n')}`,
      );

      const harvested = await until(
        'the harvest run ends',
        async () => (await cluster.api.get(`/api/v1/admin/harvest-sources/${source.body.id}`, auth)).body.lastRun?.status !== 'running',
        5 * 60_000,
      ).then(async () => (await cluster.api.get(`/api/v1/admin/harvest-sources/${source.body.id}`, auth)).body.lastRun);
      t.like(harvested, { status: 'succeeded', seen: raw.dataset.length, failed: 0 });
      const [records] = await cluster.sql<{ datasets: number; names: number }>(
        `select count(*)::int as datasets, count(distinct d.harvest_remote_id)::int as names from datasets d join groups o on o.id = d.owner_org_id where o.name = 'gsa'`,
      );
      t.deepEqual(records, { datasets: raw.dataset.length, names: raw.dataset.length }, 'each record once');

      const pipeline = await settledPipeline(cluster.api, bigResource, auth, { succeeded: true });
      t.is(pipeline.status, 'succeeded');
      const count = await cluster.api.post(`/api/v1/resources/${bigResource}/query`, { sql: 'SELECT count(*) AS n FROM data' });
      t.deepEqual(count.body.rows, [{ n: '400000' }]);
      const [versions] = await cluster.sql<{ n: number }>(`select count(*)::int as n from resource_versions where resource_id = $1`, [
        bigResource,
      ]);
      t.is(versions!.n, 1, 'one version of the file, not one per attempt');

      await until(
        'the organization is purged',
        async () => (await cluster.api.get('/api/v1/organizations/doomed', auth)).status === 404,
        3 * 60_000,
      );
      const [left] = await cluster.sql<{ datasets: number; points: number }>(
        `select (select count(*)::int from datasets where id = any($1::uuid[])) as datasets,
              (select count(*)::int from search_points where dataset_id = any($1::uuid[])) as points`,
        [doomed],
      );
      t.deepEqual(left, { datasets: 0, points: 0 });
      for (const id of doomedFiles) t.deepEqual(await cluster.objects(`resources/${id}/`), [], `no file of ${id} outlives it`);

      // Points: every document has its vector once the backlog caught up, in the index the API reads.
      await vectorsCaughtUp(cluster, 5 * 60_000);
      await cluster.startWorker();
    },
  );

  test.serial(
    `[${backend}] a token revoked through one API process is refused by the other at once; a dataset published through one is found through the other`,
    async (t) => {
      const [one, two] = cluster.apis as [Member, Member];
      const user = await cluster.api.newUser(`revoker-${backend}`);
      for (let i = 0; i < 10; i++) {
        const made = await fetch(`${one.url}/api/v1/api-tokens`, {
          method: 'POST',
          headers: { cookie: user.cookie, 'Content-Type': 'application/json', Origin: cluster.url },
          body: JSON.stringify({ name: `t${i}` }),
        }).then((r) => r.json());
        t.is(
          (await getFrom(two.url!, '/api/v1/users/me', { token: made.token })).status,
          200,
          'the other process knows it (and caches it)',
        );
        const revoked = await fetch(`${one.url}/api/v1/api-tokens/${made.id}`, {
          method: 'DELETE',
          headers: { cookie: user.cookie, Origin: cluster.url },
        });
        t.is(revoked.status, 204);
        t.is((await getFrom(two.url!, '/api/v1/users/me', { token: made.token })).status, 401, `round ${i}: refused at once`);
      }

      const delays: number[] = [];
      const semanticDelays: number[] = [];
      for (let i = 0; i < 5; i++) {
        const name = `crossing-${backend}-${i}`;
        const made = await fetch(`${one.url}/api/v1/packages`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${cluster.adminToken}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name, title: `Glacier melt ${i}`, ownerOrg: 'faults', licenseId: 'cc-by-4.0' }),
        });
        t.is(made.status, 201);
        const at = performance.now();
        await until(`${name} found through the other process`, async () => {
          const found = await getFrom(two.url!, `/api/v1/packages?q=${name}&semantic=false`);
          return found.body.results?.some((d: { name: string }) => d.name === name);
        });
        delays.push(performance.now() - at);
        await until(
          `${name} found by meaning through the other process`,
          async () => {
            // Found by its words at once; found by meaning when the semantic half names it too.
            const found = await getFrom(two.url!, `/api/v1/packages?q=${encodeURIComponent(`glacier melt ${i}`)}&limit=10`);
            return found.body.results?.some(
              (d: { name: string; match?: { semantic: unknown[] } }) => d.name === name && (d.match?.semantic.length ?? 0) > 0,
            );
          },
          90_000,
        );
        semanticDelays.push(performance.now() - at);
      }
      const ms = (xs: number[]) => `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))} ms`;
      t.log(`published through one API process, found through the other: by keywords ${ms(delays)}, by meaning ${ms(semanticDelays)}`);
      t.true(Math.max(...delays) < 1000, 'keyword search sees a new dataset at once: it is committed with its document before the answer');
    },
  );

  if (backend === 'qdrant')
    test.serial(
      '[qdrant] Qdrant stopped under searches: keyword-only answers and no 5xx; back, and what was written meanwhile reaches it',
      async (t) => {
        t.timeout(5 * 60_000);
        const qdrant = cluster.qdrant!;
        const statuses: Array<{ status: number; semantic?: string }> = [];
        let searching = true;
        const searchers = Array.from({ length: 8 }, async (_, i) => {
          while (searching) {
            const reply = await cluster.api.get(
              `/api/v1/packages?q=${encodeURIComponent(['tide', 'glacier melt', 'sea level', 'readings'][i % 4]!)}`,
            );
            statuses.push({ status: reply.status, semantic: reply.body?.meta?.semantic });
          }
        });
        await until('searches answered with Qdrant up', () => statuses.length > 20);
        await qdrant.stop();
        await until('searches answered keyword-only', () => statuses.some((s) => s.semantic === 'unavailable'), 60_000);

        // Written while Qdrant is down: its vector has to wait in the backlog.
        const written = await publishDataset(cluster, 'faults', 'written-while-down', 'Coral reef bleaching survey');
        const whileDown = statuses.length;
        await until('more searches while it is down', () => statuses.length > whileDown + 20);
        await qdrant.start();
        await until('searches semantic again', () => statuses.slice(-5).every((s) => s.semantic === 'on'), 60_000);
        searching = false;
        await Promise.all(searchers);

        const bad = statuses.filter((s) => s.status >= 500);
        t.deepEqual(bad, [], 'no 5xx');
        t.true(statuses.filter((s) => s.semantic === 'unavailable').length > 0);
        t.log(
          `${statuses.length} searches: ${statuses.filter((s) => s.semantic === 'unavailable').length} keyword-only while Qdrant was down`,
        );

        await until(
          'the dataset written while Qdrant was down is found by meaning',
          async () => {
            const found = await cluster.api.get(`/api/v1/packages?q=${encodeURIComponent('corals losing colour in the ocean')}&limit=10`);
            return (
              found.body.meta?.semantic === 'on' &&
              found.body.results.some(
                (d: { id: string; match?: { semantic: unknown[] } }) => d.id === written.id && (d.match?.semantic.length ?? 0) > 0,
              )
            );
          },
          120_000,
        );
        t.pass();
      },
    );
}

/**
 * Polls until a step of each kind runs on the member, and returns the workflows whose step it holds, with a
 * line for each poll that saw something new (what each running workflow's steps were, and where), so that
 * a failure says what Temporal showed. A poll that fails (Temporal slow under load) is only noted. When two
 * kinds run but the third has not come within 15 s (it may have ended between polls), what runs then is
 * enough: waiting on would let them end too.
 */
async function stepsHeldBy(cluster: Cluster, member: Member, kinds: string[]) {
  const started = Date.now();
  const polls: string[] = [];
  let running: string[] = [];
  let seen = '';
  while (Date.now() - started < 60_000) {
    const at = `${((Date.now() - started) / 1000).toFixed(1)} s`;
    const now = await cluster.runningSteps().catch((err: unknown) => void polls.push(`${at}: failed: ${String(err)}`));
    if (now) {
      const line =
        now
          .map((w) => `${w.workflowId} [${w.steps.map((s) => `${s.activity}@${s.worker ?? 'queued'}`).join(' ') || 'no step'}]`)
          .join(', ') || 'nothing running';
      if (line !== seen) polls.push(`${at}: ${line}`);
      seen = line;
      running = now.filter((w) => w.steps.some((step) => step.worker?.startsWith(`${member.child.pid}@`))).map((w) => w.workflowId);
      const held = kinds.filter((kind) => running.some((id) => id.startsWith(kind))).length;
      if (held === kinds.length || (held >= 2 && Date.now() - started > 15_000)) break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { running, polls: polls.slice(-30) };
}
