import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import test from 'ava';
import { createActivities, type Activities } from '../../activities/index.ts';
import { startWorker, type RunningWorker } from '../../src/temporal/worker.ts';
import { purgeOrgWorkflowId } from '../../src/temporal/workflows-client.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let worker: RunningWorker;
const flakyQueue = `flaky-${Date.now()}`;
const attempts: number[] = [];

test.before(async () => {
  app = await startTestApp();
  const { orm, log, config } = app.almanac.services;
  const real = createActivities({ orm });
  // The first attempt of the membership step fails as a crashed worker or lost connection would.
  const flaky: Activities = {
    ...real,
    async purgeOrganizationMemberships(orgId) {
      attempts.push(Context.current().info.attempt);
      if (attempts.length === 1) throw new Error('connection reset (simulated)');
      return real.purgeOrganizationMemberships(orgId);
    },
  };
  worker = await startWorker({
    address: process.env.TEST_TEMPORAL_ADDRESS!,
    namespace: config.temporal.namespace,
    taskQueue: flakyQueue,
    orm,
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

test.serial('the org purge workflow completes when an activity fails once', async (t) => {
  const { orgId, member } = await deletedOrgWithMember('flaky-org');
  const result = await app.almanac.services.workflows.client.workflow.execute('purgeOrganizationWorkflow', {
    taskQueue: flakyQueue,
    workflowId: purgeOrgWorkflowId(orgId),
    args: [orgId],
  });
  t.deepEqual(result, { memberships: 1, removed: true });
  t.deepEqual(attempts, [1, 2]);
  t.is((await app.api.get(`/api/v1/organizations/${orgId}`, { token: app.adminToken })).status, 404);
  const mine = await app.api.get('/api/v1/users/me/organizations', { token: member.token });
  t.is(mine.body.count, 0);
});

test.serial('a purge of an organization restored meanwhile is abandoned without retries', async (t) => {
  const { orgId } = await deletedOrgWithMember('restored-org');
  await app.api.post(`/api/v1/organizations/${orgId}/restore`, undefined, { token: app.adminToken });
  const error = await t.throwsAsync(
    app.almanac.services.workflows.client.workflow.execute('purgeOrganizationWorkflow', {
      taskQueue: app.taskQueue,
      workflowId: purgeOrgWorkflowId(orgId),
      args: [orgId],
    }),
    { instanceOf: WorkflowFailedError },
  );
  // WorkflowFailedError → ActivityFailure → ApplicationFailure(PurgeAbandoned)
  t.regex(String((error?.cause?.cause as Error | undefined)?.message), /restored; purge abandoned/);
  const org = await app.api.get(`/api/v1/organizations/${orgId}`);
  t.is(org.status, 200);
  t.is(org.body.state, 'active');
});
