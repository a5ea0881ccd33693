import { Client, Connection } from '@temporalio/client';
import test from 'ava';
import { DomainError } from '../../src/domain/errors.ts';
import { freePort } from '../helpers/ports.ts';
import { Workflows } from '../../src/temporal/workflows-client.ts';

test('with Temporal out of reach, starting a purge is a 503 the caller can retry', async (t) => {
  const connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}`, connectTimeout: '1s' });
  const workflows = new Workflows(new Client({ connection }), 'almanac', 'http://localhost:8233');
  const error = await t.throwsAsync(workflows.startOrganizationPurge('00000000-0000-0000-0000-000000000000'), {
    instanceOf: DomainError,
  });
  t.is(error?.status, 503);
  t.is(error?.code, 'jobs_unavailable');
  await connection.close();
});
