import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { isProblem } from '../helpers/problem.ts';

type User = Awaited<ReturnType<TestApp['api']['newUser']>>;
let app: TestApp;
let admin: User;
let editor: User;

test.before(async () => {
  app = await startTestApp();
  [admin, editor] = await Promise.all([app.api.newUser('purge-admin'), app.api.newUser('purge-editor')]);
  const auth = { token: app.adminToken };
  await app.api.post('/api/v1/organizations', { name: 'purge-org' }, auth);
  await app.api.post('/api/v1/organizations/purge-org/members', { user: admin.id, role: 'admin' }, auth);
  await app.api.post('/api/v1/organizations/purge-org/members', { user: editor.id, role: 'editor' }, auth);
});
test.after.always(async () => app?.stop());

test('purge: deleted first (409 while active), org admin only, then dataset and resources are gone for good', async (t) => {
  const created = await app.api.post(
    '/api/v1/packages',
    { name: 'to-purge', ownerOrg: 'purge-org', licenseId: 'cc-by', resources: [{ url: 'https://example.org/p.csv' }] },
    { token: editor.token },
  );
  t.is(created.status, 201, created.text);
  const resourceId = created.body.resources[0].id;

  isProblem(t, await app.api.post('/api/v1/packages/to-purge/purge', undefined, { token: admin.token }), 409, 'conflict');
  t.is((await app.api.delete('/api/v1/packages/to-purge', { token: editor.token })).status, 204);
  isProblem(t, await app.api.post('/api/v1/packages/to-purge/purge'), 401, 'unauthenticated');
  isProblem(t, await app.api.post('/api/v1/packages/to-purge/purge', undefined, { token: editor.token }), 403, 'forbidden');

  const purged = await app.api.post('/api/v1/packages/to-purge/purge', undefined, { token: admin.token });
  t.is(purged.status, 204, purged.text);
  isProblem(t, await app.api.get(`/api/v1/packages/${created.body.id}`, { token: app.adminToken }), 404, 'not_found');
  isProblem(t, await app.api.get(`/api/v1/resources/${resourceId}`, { token: app.adminToken }), 404, 'not_found');
  isProblem(t, await app.api.post('/api/v1/packages/to-purge/purge', undefined, { token: admin.token }), 404, 'not_found');
  // The name is free again.
  const again = await app.api.post(
    '/api/v1/packages',
    { name: 'to-purge', ownerOrg: 'purge-org', licenseId: 'cc-by' },
    { token: editor.token },
  );
  t.is(again.status, 201, again.text);
});
