import test from 'ava';
import { startTestAppWithPeople, type People, type TestApp } from '../helpers/app.ts';
import { as } from '../helpers/client.ts';
import { groupWithMembers, ORGANIZATIONS } from '../helpers/groups.ts';
import { isProblem } from '../helpers/problem.ts';

let app: TestApp;
let people: People<'admin' | 'editor'>;

test.before(async (t) => {
  ({ app, people } = await startTestAppWithPeople('purge', ['admin', 'editor']));
  await groupWithMembers(t, app, ORGANIZATIONS, { name: 'purge-org' }, people);
});
test.after.always(async () => app?.stop());

test('purge: deleted first (409 while active), org admin only, then dataset and resources are gone for good', async (t) => {
  const created = await app.api.post(
    '/api/v1/packages',
    { name: 'to-purge', ownerOrg: 'purge-org', licenseId: 'cc-by', resources: [{ url: 'https://example.org/p.csv' }] },
    as(people.editor),
  );
  t.is(created.status, 201, created.text);
  const resourceId = created.body.resources[0].id;

  isProblem(t, await app.api.post('/api/v1/packages/to-purge/purge', undefined, as(people.admin)), 409, 'conflict');
  t.is((await app.api.delete('/api/v1/packages/to-purge', as(people.editor))).status, 204);
  isProblem(t, await app.api.post('/api/v1/packages/to-purge/purge'), 401, 'unauthenticated');
  isProblem(t, await app.api.post('/api/v1/packages/to-purge/purge', undefined, as(people.editor)), 403, 'forbidden');

  const purged = await app.api.post('/api/v1/packages/to-purge/purge', undefined, as(people.admin));
  t.is(purged.status, 204, purged.text);
  isProblem(t, await app.api.get(`/api/v1/packages/${created.body.id}`, { token: app.adminToken }), 404, 'not_found');
  isProblem(t, await app.api.get(`/api/v1/resources/${resourceId}`, { token: app.adminToken }), 404, 'not_found');
  isProblem(t, await app.api.post('/api/v1/packages/to-purge/purge', undefined, as(people.admin)), 404, 'not_found');
  // The name is free again.
  const again = await app.api.post('/api/v1/packages', { name: 'to-purge', ownerOrg: 'purge-org', licenseId: 'cc-by' }, as(people.editor));
  t.is(again.status, 201, again.text);
});
