import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => app?.stop());

test.serial('a pool that every request is using, its queries still answered, is busy and not down', async (t) => {
  const { orm } = app.almanac.services;
  // Ten connections, each query 50 ms: a queue of about four seconds, past the health probe's deadline.
  const queue = Promise.all(Array.from({ length: 800 }, () => orm.em.fork().execute('select pg_sleep(0.05)')));
  await new Promise((r) => setTimeout(r, 300));
  const health = await app.api.get('/api/health');
  await queue;
  t.is(health.status, 200, health.text);
  t.is(health.body.components.database, 'ok');
});

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
