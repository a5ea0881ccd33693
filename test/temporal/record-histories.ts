/**
 * Records one real history of every workflow into test/temporal/histories/, for the replay test
 * (test/temporal/replay.test.ts) that catches a change breaking determinism. Run it again when a
 * workflow changes on purpose (with a patch or a new version), and commit the files:
 *
 *   npx tsx test/temporal/record-histories.ts
 *
 * It starts its own PostgreSQL and Temporal dev server, runs the app on the local file store, drives
 * each workflow through the API as a user would, and saves each run with `temporal workflow show -o json`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createLogger } from '../../src/logger.ts';
import * as ids from '../../src/domain/jobs/ids.ts';
import { startTestApp } from '../helpers/app.ts';
import { startEngines } from '../helpers/engines.ts';

const OUT = path.resolve(import.meta.dirname, 'histories');
const log = createLogger('warn');
const engines = await startEngines('histories', log);
const { pg, temporal } = engines;
process.env.TEST_PG_URL = pg.url('postgres');
process.env.TEST_TEMPORAL_ADDRESS = temporal.address;
// A link for the link check and the pipeline's fetch step, served on loopback.
// And a DCAT-US data.json of two datasets for a harvest.
const dataJson = JSON.stringify({
  dataset: ['one', 'two'].map((n) => ({ identifier: `history-${n}`, title: `History ${n}`, keyword: ['history'], accessLevel: 'public' })),
});
const site = http.createServer((req, res) =>
  req.url === '/data.json'
    ? res.writeHead(200, { 'content-type': 'application/json' }).end(dataJson)
    : res.writeHead(200, { 'content-type': 'text/csv' }).end('a,b\n1,2\n'),
);
await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
const linkUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/data.csv`;

const app = await startTestApp({ FETCH_ALLOW_PRIVATE_NETWORKS: 'true' });
const auth = { token: app.adminToken };
const { client } = app.almanac.services.jobs;
const settle = (workflowId: string) => client.workflow.getHandle(workflowId).result();
const ok = <T extends { status: number; text: string }>(reply: T, expected = [200, 201, 202, 204]) => {
  if (!expected.includes(reply.status)) throw new Error(`${reply.status}: ${reply.text}`);
  return reply;
};
const recorded: Record<string, string> = {};

try {
  const org = ok(await app.api.post('/api/v1/organizations', { name: 'history-org' }, auth)).body;
  // An active dataset with a link, published again for a publish-sync, and a pipeline fetching the link.
  const dataset = ok(
    await app.api.post(
      '/api/v1/packages',
      { name: 'history-data', ownerOrg: org.id, licenseId: 'cc-by', resources: [{ url: linkUrl, format: 'CSV' }] },
      auth,
    ),
  ).body;
  const resourceId = dataset.resources[0].id as string;
  ok(await app.api.post(`/api/v1/packages/${dataset.id}/publish`, {}, auth));
  recorded['publish-sync'] = ids.publishSyncWorkflowId(dataset.id);
  ok(await app.api.post(`/api/v1/resources/${resourceId}/run-pipeline`, undefined, auth));
  await settle(ids.pipelineWorkflowId(resourceId));
  recorded.pipeline = ids.pipelineWorkflowId(resourceId);

  // The jobs a sysadmin starts, each under its one fixed workflow id.
  for (const [name, endpoint, workflowId] of [
    ['enqueue-all', '/api/v1/admin/jobs/enqueue-all', ids.ENQUEUE_ALL_WORKFLOW_ID],
    ['link-check', '/api/v1/admin/health/check', ids.LINK_CHECK_WORKFLOW_ID],
    ['reindex-metadata', '/api/v1/admin/reindex-metadata', ids.REINDEX_WORKFLOW_ID],
  ]) {
    ok(await app.api.post(endpoint, undefined, auth));
    await settle(workflowId);
    recorded[name] = workflowId;
  }

  // The scheduled sweep, started as its schedule would (no endpoint starts it).
  await client.workflow.execute('sweepStorageWorkflow', {
    workflowId: ids.SWEEP_STORAGE_WORKFLOW_ID,
    taskQueue: app.almanac.services.config.temporal.taskQueue,
    args: [{ olderThanSeconds: 0 }],
  });
  recorded['sweep-storage'] = ids.SWEEP_STORAGE_WORKFLOW_ID;

  // A harvest of a DCAT-US data.json, read two pages of one dataset each.
  const source = ok(
    await app.api.post(
      '/api/v1/admin/harvest-sources',
      { name: 'history-source', type: 'dcat-us', url: linkUrl.replace('/data.csv', '/data.json'), organization: org.id },
      auth,
    ),
  ).body;
  await client.workflow.execute('harvestWorkflow', {
    workflowId: ids.harvestWorkflowId(source.id),
    taskQueue: app.almanac.services.config.temporal.taskQueue,
    args: [{ sourceId: source.id, pageSize: 1 }],
  });
  recorded.harvest = ids.harvestWorkflowId(source.id);

  // The vector backlog as a harvest page announces it (this app has no model: the pass finds nothing to embed).
  await app.almanac.services.jobs.announceVectorBacklog();
  const backlog = ids.vectorBacklogWorkflowId(app.almanac.services.config.temporal.taskQueue);
  await settle(backlog);
  recorded['vector-backlog'] = backlog;

  const draft = ok(await app.api.post('/api/v1/packages/drafts', { name: 'history-draft' }, auth)).body;
  ok(await app.api.delete(`/api/v1/packages/${draft.id}`, auth));
  recorded['delete-draft'] = ids.deleteDraftWorkflowId(draft.id);

  ok(await app.api.delete(`/api/v1/packages/${dataset.id}`, auth));
  ok(await app.api.post(`/api/v1/packages/${dataset.id}/purge`, undefined, auth));
  recorded['purge-dataset'] = ids.purgeDatasetWorkflowId(dataset.id);

  ok(await app.api.delete(`/api/v1/organizations/${org.id}`, auth));
  ok(await app.api.post(`/api/v1/organizations/${org.id}/purge`, undefined, auth));
  await settle(ids.purgeOrgWorkflowId(org.id));
  recorded['purge-organization'] = ids.purgeOrgWorkflowId(org.id);

  ok(await app.api.post('/api/v1/organizations', { name: 'history-org-2' }, auth));
  ok(await app.api.delete('/api/v1/admin/data', auth));
  await settle(ids.DELETE_ALL_DATA_WORKFLOW_ID);
  recorded['delete-all-data'] = ids.DELETE_ALL_DATA_WORKFLOW_ID;

  for (const [name, workflowId] of Object.entries(recorded)) {
    const json = execFileSync(temporal.cliPath, ['workflow', 'show', '-w', workflowId, '--address', temporal.address, '-o', 'json']);
    await fs.writeFile(path.join(OUT, `${name}.json`), json);
    console.log(`recorded ${name} (${workflowId})`);
  }
} finally {
  await app.stop();
  site.close();
  await engines.stop();
}
