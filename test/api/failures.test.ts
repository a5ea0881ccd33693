import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => app?.stop());

// Runs last in this file: it takes the database away from the running app.
test.serial('with the database gone, requests are a 500 problem without internals and health is down', async (t) => {
  await app.almanac.services.orm.close(true);

  const res = await app.api.get('/api/v1/organizations');
  t.is(res.status, 500);
  t.is(res.headers.get('content-type'), 'application/problem+json');
  t.like(res.body, { status: 500, code: 'internal_error', title: 'Internal server error' });
  t.true(res.body.detail.includes(res.headers.get('x-request-id')!));
  t.notRegex(res.text, /at .*\.ts:\d+|node_modules|stack|knex|pool/i);
  t.true(app.logs.some((l) => l.includes('"unhandled error"') && l.includes(res.headers.get('x-request-id')!)));

  const health = await app.api.get('/api/health');
  t.is(health.status, 503);
  t.deepEqual(health.body, {
    status: 'down',
    components: { database: 'down', temporal: 'ok', storage: 'ok', vectors: 'ok', embeddings: 'down' },
  });
});
