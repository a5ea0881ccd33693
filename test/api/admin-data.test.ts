import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { isProblem } from '../helpers/problem.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => app?.stop());

test('DELETE /admin/data removes every dataset, organization, category and tag, and keeps the users', async (t) => {
  const auth = { token: app.adminToken };
  const user = await app.api.newUser('data-keeper');
  await app.api.post('/api/v1/organizations', { name: 'wipe-org' }, auth);
  await app.api.post('/api/v1/groups', { name: 'wipe-cat' }, auth);
  await app.api.post('/api/v1/organizations/wipe-org/members', { user: user.id, role: 'editor' }, auth);
  for (const name of ['wipe-a', 'wipe-b']) {
    const res = await app.api.post(
      '/api/v1/packages',
      {
        name,
        ownerOrg: 'wipe-org',
        licenseId: 'cc-by',
        tags: ['wipe-tag'],
        groups: ['wipe-cat'],
        resources: [{ url: `https://example.org/${name}.csv`, format: 'CSV' }],
      },
      auth,
    );
    t.is(res.status, 201, res.text);
  }
  await app.api.post('/api/v1/packages/drafts', { title: 'a draft' }, { token: user.token });
  const usersBefore = (await app.api.get('/api/v1/admin/users/stats', auth)).body.total;

  isProblem(t, await app.api.delete('/api/v1/admin/data'), 401, 'unauthenticated');
  isProblem(t, await app.api.delete('/api/v1/admin/data', { token: user.token }), 403, 'forbidden');
  t.is((await app.api.get('/api/v1/packages')).body.count, 2, 'nothing deleted by the refused requests');

  const started = await app.api.delete('/api/v1/admin/data', auth);
  t.is(started.status, 202, started.text);
  t.is(started.body.workflowId, 'delete-all-data');

  const deadline = Date.now() + 30_000;
  let left = -1;
  while (Date.now() < deadline) {
    left = (await app.api.get('/api/v1/organizations', auth)).body.count;
    if (left === 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  t.is(left, 0);
  t.is((await app.api.get('/api/v1/packages?private', auth)).body.count, 0);
  t.is((await app.api.get('/api/v1/packages?state=draft', { token: user.token })).body.count, 0);
  t.is((await app.api.get('/api/v1/groups', auth)).body.count, 0);
  t.is((await app.api.get('/api/v1/tags', auth)).body.count, 0);
  t.deepEqual((await app.api.get('/api/v1/resources/count', auth)).body, { count: 0 });
  t.is((await app.api.get('/api/v1/activity', auth)).body.count, 0, 'the history goes with the catalog');
  t.is((await app.api.get('/api/v1/admin/users/stats', auth)).body.total, usersBefore, 'users stay');
  t.is((await app.api.get('/api/v1/users/me', { token: user.token })).status, 200, 'and so do their tokens');
});
