import { Context } from '@temporalio/activity';
import test from 'ava';
import { createActivities, type Activities } from '../../activities/index.ts';
import { startWorker, type RunningWorker } from '../../src/temporal/worker.ts';
import { purgeOrgWorkflowId } from '../../src/domain/jobs/ids.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let worker: RunningWorker;
const flakyQueue = `flaky-${Date.now()}`;
const attempts: number[] = [];

test.before(async () => {
  app = await startTestApp();
  const { orm, log, config, storage, search } = app.almanac.services;
  const real = createActivities({ orm, storage, config, search });
  // The first attempt removes the row, then fails as a worker killed before it could report would: the
  // retry finds the row gone, and that is the purge done, not an organization restored.
  const flaky: Activities = {
    ...real,
    async purgeOrganizationRecord(orgId) {
      attempts.push(Context.current().info.attempt);
      const removed = await real.purgeOrganizationRecord(orgId);
      if (attempts.length === 1) throw new Error('connection reset (simulated)');
      return removed;
    },
  };
  worker = await startWorker({
    address: process.env.TEST_TEMPORAL_ADDRESS!,
    namespace: config.temporal.namespace,
    taskQueue: flakyQueue,
    log,
    activities: flaky,
  });
});
test.after.always(async () => {
  await worker?.stop();
  await app?.stop();
});

async function deletedOrgWithMember(name: string) {
  const auth = { token: app.adminToken };
  const org = await app.api.post('/api/v1/organizations', { name }, auth);
  const member = await app.api.newUser(`${name}-member`);
  await app.api.post(`/api/v1/organizations/${name}/members`, { user: member.id, role: 'editor' }, auth);
  await app.api.delete(`/api/v1/organizations/${name}`, auth);
  return { orgId: org.body.id as string, member };
}

test.serial('the org purge workflow completes when an activity fails once, after its work', async (t) => {
  const { orgId, member } = await deletedOrgWithMember('flaky-org');
  const result = await app.almanac.services.jobs.client.workflow.execute('purgeOrganizationWorkflow', {
    taskQueue: flakyQueue,
    workflowId: purgeOrgWorkflowId(orgId),
    args: [orgId],
  });
  t.deepEqual(result, { removed: true, datasets: 0 });
  t.deepEqual(attempts, [1, 2]);
  t.is((await app.api.get(`/api/v1/organizations/${orgId}`, { token: app.adminToken })).status, 404);
  const mine = await app.api.get('/api/v1/users/me/organizations', { token: member.token });
  t.is(mine.body.count, 0);
});

test.serial('a purge that reaches an organization restored meanwhile removes nothing', async (t) => {
  const { orgId, member } = await deletedOrgWithMember('restored-org');
  await app.api.post(`/api/v1/organizations/${orgId}/restore`, undefined, { token: app.adminToken });
  const result = await app.almanac.services.jobs.client.workflow.execute('purgeOrganizationWorkflow', {
    taskQueue: app.taskQueue,
    workflowId: purgeOrgWorkflowId(orgId),
    args: [orgId],
  });
  t.deepEqual(result, { removed: false, datasets: 0 });
  const org = await app.api.get(`/api/v1/organizations/${orgId}`);
  t.is(org.status, 200);
  t.is(org.body.state, 'active');
  const mine = await app.api.get('/api/v1/users/me/organizations', { token: member.token });
  t.is(mine.body.count, 1, 'memberships survive');
});

test.serial('restore is refused (409) while the purge workflow runs', async (t) => {
  const { orgId } = await deletedOrgWithMember('purging-org');
  // A queue no worker polls: the run stays open for as long as the test needs.
  const handle = await app.almanac.services.jobs.client.workflow.start('purgeOrganizationWorkflow', {
    taskQueue: `idle-${Date.now()}`,
    workflowId: purgeOrgWorkflowId(orgId),
    args: [orgId],
  });
  try {
    const refused = await app.api.post(`/api/v1/organizations/${orgId}/restore`, undefined, { token: app.adminToken });
    t.is(refused.status, 409);
    t.is(refused.body.code, 'conflict');
  } finally {
    await handle.terminate('test over');
  }
  const restored = await app.api.post(`/api/v1/organizations/${orgId}/restore`, undefined, { token: app.adminToken });
  t.is(restored.status, 200);
});

test.serial('the purge removes the organization’s datasets page by page, continuing as new, then the organization', async (t) => {
  const auth = { token: app.adminToken };
  const { orgId } = await deletedOrgWithMember('big-org');
  // Datasets need an active organization: restore it, add them, delete it again.
  await app.api.post(`/api/v1/organizations/${orgId}/restore`, undefined, auth);
  const names = ['big-a', 'big-b', 'big-c', 'big-d', 'big-e'];
  for (const name of names) {
    const res = await app.api.post(
      '/api/v1/packages',
      { name, ownerOrg: orgId, licenseId: 'cc-by', resources: [{ url: `https://example.org/${name}.csv` }] },
      auth,
    );
    t.is(res.status, 201, res.text);
  }
  await app.api.delete(`/api/v1/organizations/${orgId}`, auth);

  const handle = await app.almanac.services.jobs.client.workflow.start('purgeOrganizationWorkflow', {
    taskQueue: app.taskQueue,
    workflowId: purgeOrgWorkflowId(orgId),
    args: [orgId, { pageSize: 1, pagesPerRun: 2 }],
  });
  t.deepEqual(await handle.result(), { removed: true, datasets: 5 });
  t.not((await handle.describe()).runId, handle.firstExecutionRunId, 'the purge continued as new');
  for (const name of names) t.is((await app.api.get(`/api/v1/packages/${name}`, auth)).status, 404, name);
  t.is((await app.api.get(`/api/v1/organizations/${orgId}`, auth)).status, 404);
  t.deepEqual((await app.api.get('/api/v1/resources/count', auth)).body, { count: 0 });
});
