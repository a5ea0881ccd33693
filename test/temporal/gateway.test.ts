import test from 'ava';
import { DomainError } from '../../src/domain/errors.ts';
import { TemporalJobs } from '../../src/temporal/gateway.ts';
import { freePort } from '../helpers/ports.ts';

// Every door of the gateway maps Temporal out of reach to the same 503: starts, awaited runs, describes, visibility.
const calls: Array<[string, (jobs: TemporalJobs) => Promise<unknown>]> = [
  ['starting a purge', (jobs) => jobs.startOrganizationPurge('00000000-0000-0000-0000-000000000000')],
  ['asking whether a purge runs', (jobs) => jobs.isOrganizationPurgeRunning('00000000-0000-0000-0000-000000000000')],
  ['deleting a draft', (jobs) => jobs.deleteDraft('00000000-0000-0000-0000-000000000000')],
  ['starting a link check', (jobs) => jobs.startLinkCheck({})],
  ['listing jobs', (jobs) => jobs.list({}, { offset: 0, limit: 10 })],
  ['counting jobs', (jobs) => jobs.stats()],
];

for (const [what, call] of calls) {
  test(`with Temporal out of reach, ${what} is a 503 jobs_unavailable the caller can retry`, async (t) => {
    const jobs = await TemporalJobs.connect({
      address: `127.0.0.1:${await freePort()}`,
      namespace: 'default',
      taskQueue: 'almanac',
      uiUrl: 'http://localhost:8233',
      lazy: true,
    });
    const error = await t.throwsAsync(call(jobs), { instanceOf: DomainError });
    t.is(error?.status, 503);
    t.is(error?.code, 'jobs_unavailable');
    // Closing right after: a retry still waiting must not fire on the closed channel (an uncaught exception).
    await jobs.close();
  });
}
