import test from 'ava';
import {
  deleteDraftWorkflowId,
  jobSubject,
  JOB_STATUS_NAMES,
  JOB_TYPE_NAMES,
  JOB_TYPES,
  pipelineWorkflowId,
  publishSyncWorkflowId,
  purgeDatasetWorkflowId,
  purgeOrgWorkflowId,
} from '../../src/domain/jobs/ids.ts';
import { failureMessage, jobsQuery } from '../../src/temporal/job-visibility.ts';

const id = '0b7d5a52-2a53-4d6e-9d55-7a3e1f0c9b11';

test('the jobs query always keeps to the task queue, then adds the type and status filters', (t) => {
  t.is(jobsQuery('almanac'), `TaskQueue = 'almanac'`);
  t.is(jobsQuery('almanac', { type: 'purge-org' }), `TaskQueue = 'almanac' AND WorkflowType = 'purgeOrganizationWorkflow'`);
  t.is(
    jobsQuery('q1', { type: 'pipeline', status: 'continued_as_new' }),
    `TaskQueue = 'q1' AND WorkflowType = 'pipelineWorkflow' AND ExecutionStatus = 'ContinuedAsNew'`,
  );
  t.is(jobsQuery('q1', { status: 'timed_out' }), `TaskQueue = 'q1' AND ExecutionStatus = 'TimedOut'`);
});

test('a quote in the task queue name cannot end the literal', (t) => {
  t.is(jobsQuery(`it's`), `TaskQueue = 'it\\'s'`);
  t.is(jobsQuery(`a\\' OR 1=1`), `TaskQueue = 'a\\\\\\' OR 1=1'`);
});

test('every job type maps to a distinct workflow type, and every status has a name', (t) => {
  t.is(new Set(Object.values(JOB_TYPES)).size, JOB_TYPE_NAMES.length);
  t.deepEqual([...JOB_STATUS_NAMES].sort(), ['canceled', 'completed', 'continued_as_new', 'failed', 'running', 'terminated', 'timed_out']);
});

test('the subject of a job is read back from its deterministic workflow id', (t) => {
  t.deepEqual(jobSubject('pipelineWorkflow', pipelineWorkflowId(id)), { resourceId: id });
  t.deepEqual(jobSubject('publishSyncWorkflow', publishSyncWorkflowId(id)), { packageId: id });
  t.deepEqual(jobSubject('deleteDraftWorkflow', deleteDraftWorkflowId(id)), { packageId: id });
  t.deepEqual(jobSubject('purgeDatasetWorkflow', purgeDatasetWorkflowId(id)), { packageId: id });
  t.deepEqual(jobSubject('purgeOrganizationWorkflow', purgeOrgWorkflowId(id)), { organizationId: id });
});

test('ids that do not follow the convention name no subject', (t) => {
  t.deepEqual(jobSubject('pipelineWorkflow', 'pipeline-not-a-uuid'), {});
  t.deepEqual(jobSubject('pipelineWorkflow', `publish-sync-${id}`), {});
  t.deepEqual(jobSubject('linkCheckWorkflow', 'link-check-2026-01-01T00:00:00Z'), {});
  t.deepEqual(jobSubject('enqueueAllWorkflow', 'enqueue-all'), {});
  t.deepEqual(jobSubject('someOtherWorkflow', `pipeline-${id}`), {});
});

test('a failure message names the failure and its causes, outermost first', (t) => {
  t.is(failureMessage(undefined), null);
  t.is(failureMessage({ message: 'bad bytes' }), 'bad bytes');
  t.is(
    failureMessage({ message: 'Activity task failed', cause: { message: 'connection reset', cause: { message: '' } } }),
    'Activity task failed: connection reset',
  );
  t.is(failureMessage({ message: 'same', cause: { message: 'same' } }), 'same');
});
