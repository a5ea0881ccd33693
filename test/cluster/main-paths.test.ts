/**
 * The production shape (test/cluster/cluster.ts) on its main paths, all through the load balancer: publish,
 * upload → pipeline → query, harvest, search by keywords and by meaning, and the visibility rule, over
 * REST, the CKAN API and MCP. Once with Qdrant when it is built here, once with each API process's
 * embedded index. Requests alternate between the two API processes, so each path crosses processes:
 * a write on one, the read that sees it on the other, the work on a worker.
 */
import test from 'ava';
import fs from 'node:fs/promises';
import path from 'node:path';
import { until } from '../helpers/app.ts';
import { startFileServer } from '../helpers/file-server.ts';
import { settledPipeline } from '../helpers/pipeline.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';
import { availableBackends, startCluster, type Cluster } from './cluster.ts';
import { admin, getFrom, harvestToEnd, mcpCall, publishDataset, vectorsCaughtUp } from './flows.ts';

const CSV = 'station,level_cm,measured_on\nnorth,132,2024-04-01\nsouth,98,2024-04-01\nnorth,141,2024-05-01\nsouth,87,2024-05-01\n';

for (const backend of availableBackends()) {
  let cluster: Cluster;
  let member: { token: string };
  let publicSet: { id: string; resources: Array<{ id: string }> };
  let privateSet: { id: string };

  test.before(async () => {
    cluster = await startCluster(backend);
    const auth = admin(cluster);
    const org = await cluster.api.post('/api/v1/organizations', { name: 'cluster-water', title: 'Water board' }, auth);
    if (org.status !== 201) throw new Error(org.text);
    const user = await cluster.api.newUser(`cluster-member-${backend}`);
    await cluster.api.post('/api/v1/organizations/cluster-water/members', { user: user.id, role: 'member' }, auth);
    member = { token: user.token };
    publicSet = await publishDataset(cluster, 'cluster-water', 'river-levels', 'River water levels');
    privateSet = await publishDataset(cluster, 'cluster-water', 'reservoir-intake', 'Reservoir water intake', { private: true });
  });
  test.after.always(async () => cluster?.stop());

  test.serial(
    `[${backend}] a dataset published through the balancer is read from both API processes, private ones by members only`,
    async (t) => {
      for (const api of cluster.apis) {
        const anonymous = await getFrom(api.url!, '/api/v1/packages?q=water&semantic=false');
        t.is(anonymous.status, 200, anonymous.text);
        t.deepEqual(
          anonymous.body.results.map((d: { name: string }) => d.name),
          ['river-levels'],
          `${api.name}: the private dataset is not listed`,
        );
        t.is(anonymous.body.count, 1, `${api.name}: nor counted`);
        t.is((await getFrom(api.url!, `/api/v1/packages/${privateSet.id}`)).status, 404, api.name);
        const asMember = await getFrom(api.url!, `/api/v1/packages/${privateSet.id}`, member);
        t.is(asMember.status, 200, `${api.name}: ${asMember.text}`);
      }

      const ckanAnonymous = await cluster.api.get('/api/3/action/package_search?q=water');
      t.deepEqual(
        ckanAnonymous.body.result.results.map((d: { name: string }) => d.name),
        ['river-levels'],
      );
      const ckanMember = await cluster.api.get('/api/3/action/package_search?q=water&include_private=true', member);
      t.deepEqual(ckanMember.body.result.results.map((d: { name: string }) => d.name).sort(), ['reservoir-intake', 'river-levels']);
      const ckanShow = await cluster.api.get('/api/3/action/package_show?id=reservoir-intake');
      t.false(ckanShow.body.success);

      const mcpAnonymous = await mcpCall(cluster, 'search_datasets', { q: 'water' });
      t.false(mcpAnonymous.isError, mcpAnonymous.text);
      t.true(mcpAnonymous.text.includes('river-levels'));
      t.false(mcpAnonymous.text.includes('reservoir-intake'), 'MCP does not list the private dataset to anyone');
      const mcpMember = await mcpCall(cluster, 'get_dataset', { nameOrId: 'reservoir-intake' }, member.token);
      t.false(mcpMember.isError, mcpMember.text);
      t.true((await mcpCall(cluster, 'get_dataset', { nameOrId: 'reservoir-intake' })).isError);
    },
  );

  test.serial(`[${backend}] upload → pipeline on a worker → query through REST, the DataStore and MCP`, async (t) => {
    const resource = publicSet.resources[0]!.id;
    const upload = await fetch(`${cluster.url}/api/v1/resources/${resource}/upload`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${cluster.adminToken}`, 'Content-Type': 'text/csv' },
      body: CSV,
    });
    t.is(upload.status, 200, await upload.text());
    const status = await settledPipeline(cluster.api, resource, admin(cluster), { succeeded: true });
    t.is(status.status, 'succeeded');

    const rest = await cluster.api.post(`/api/v1/resources/${resource}/query`, {
      sql: 'SELECT station, max(level_cm) AS top FROM data GROUP BY station ORDER BY station',
    });
    t.is(rest.status, 200, rest.text);
    t.deepEqual(rest.body.rows, [
      { station: 'north', top: '141' },
      { station: 'south', top: '98' },
    ]);
    const datastore = await cluster.api.get(
      `/api/3/action/datastore_search?resource_id=${resource}&filters=${encodeURIComponent('{"station":"south"}')}&sort=${encodeURIComponent('level_cm desc')}`,
    );
    t.true(datastore.body.success, datastore.text);
    t.deepEqual(
      datastore.body.result.records.map((r: { level_cm: number }) => r.level_cm),
      [98, 87],
    );
    const mcp = await mcpCall(cluster, 'query_resource', { id: resource, sql: 'SELECT sum(level_cm) AS total FROM data' });
    t.false(mcp.isError, mcp.text);
    t.true(mcp.text.includes('458'), mcp.text);

    // The file is in the cluster's bucket, not on one process's disk: both API processes serve it.
    for (const api of cluster.apis) {
      const download = await fetch(`${api.url}/api/v1/resources/${resource}/download`, { redirect: 'follow' });
      t.is(download.status, 200, api.name);
      t.is(await download.text(), CSV, api.name);
    }
  });

  test.serial(`[${backend}] a DCAT-US harvest runs on the workers and its datasets are found through both API processes`, async (t) => {
    const file = path.join(SHARED_DATA, 'dcat-us', 'consumerfinance.json');
    const raw = JSON.parse(await fs.readFile(file, 'utf8')) as { dataset: Array<{ title: string }> };
    const files = await startFileServer({
      '/data.json': (_req, res) => void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(raw)),
    });
    try {
      const org = await cluster.api.post('/api/v1/organizations', { name: 'cfpb' }, admin(cluster));
      t.is(org.status, 201, org.text);
      const source = await cluster.api.post(
        '/api/v1/admin/harvest-sources',
        { name: 'cfpb', type: 'dcat-us', url: `${files.url}/data.json`, organization: 'cfpb' },
        admin(cluster),
      );
      t.is(source.status, 201, source.text);
      const run = await harvestToEnd(cluster, source.body.id);
      t.like(run, { status: 'succeeded', seen: raw.dataset.length, created: raw.dataset.length, failed: 0 });
    } finally {
      await files.close();
    }
    const [row] = await cluster.sql<{ n: number }>(
      `select count(*)::int as n from datasets d join groups o on o.id = d.owner_org_id where o.name = 'cfpb'`,
    );
    t.is(row!.n, raw.dataset.length, 'each record written once');
    for (const api of cluster.apis) {
      const found = await getFrom(api.url!, '/api/v1/packages?organization=cfpb&limit=1');
      t.is(found.body.count, raw.dataset.length, api.name);
    }
  });

  test.serial(`[${backend}] search by meaning answers from both API processes once the backlog has embedded the datasets`, async (t) => {
    await vectorsCaughtUp(cluster);
    // No word of the query is in the dataset: only the semantic half can find it.
    for (const api of cluster.apis) {
      await until(`${api.name} finds the river dataset by meaning`, async () => {
        const found = await getFrom(api.url!, `/api/v1/packages?q=${encodeURIComponent('hydrology of streams')}&limit=5`);
        return found.body.meta?.semantic === 'on' && found.body.results.some((d: { name: string }) => d.name === 'river-levels');
      });
      const anonymous = await getFrom(api.url!, `/api/v1/packages?q=${encodeURIComponent('reservoir intake volumes')}&limit=20`);
      t.false(
        anonymous.body.results.some((d: { name: string }) => d.name === 'reservoir-intake'),
        `${api.name}: the private dataset is not found by meaning either`,
      );
    }
    const health = await getFrom(cluster.apis[0]!.url!, '/api/health');
    t.is(health.body.components.vectors, 'ok');
    t.pass();
  });
}
