import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { isProblem } from '../helpers/problem.ts';

type User = Awaited<ReturnType<TestApp['api']['newUser']>>;
let app: TestApp;
let member: User;
let outsider: User;

test.before(async () => {
  app = await startTestApp();
  [member, outsider] = await Promise.all([app.api.newUser('tags-member'), app.api.newUser('tags-outsider')]);
  const auth = { token: app.adminToken };
  await app.api.post('/api/v1/organizations', { name: 'tags-org' }, auth);
  await app.api.post('/api/v1/organizations/tags-org/members', { user: member.id, role: 'member' }, auth);
  await app.api.post('/api/v1/groups', { name: 'tags-cat' }, auth);
  const base = { ownerOrg: 'tags-org', licenseId: 'cc-by', groups: ['tags-cat'] };
  await app.api.post('/api/v1/packages', { ...base, name: 'tags-public', tags: ['climate', 'shared'] }, auth);
  await app.api.post('/api/v1/packages', { ...base, name: 'tags-private', private: true, tags: ['secret-plan', 'shared'] }, auth);
  await app.api.post('/api/v1/packages', { ...base, name: 'tags-deleted', tags: ['gone-tag'] }, auth);
  await app.api.delete('/api/v1/packages/tags-deleted', auth);
  await app.api.post('/api/v1/packages/drafts', { tags: ['draft-only'] }, { token: outsider.token });
});
test.after.always(async () => app?.stop());

const names = (res: { body: { results: Array<{ name: string }> } }) => res.body.results.map((t) => t.name);

test('tags are those of the active datasets the caller may see: never drafts, deleted, or others’ private ones', async (t) => {
  t.deepEqual(names(await app.api.get('/api/v1/tags')), ['climate', 'shared']);
  t.deepEqual(
    names(await app.api.get('/api/v1/tags', { token: outsider.token })),
    ['climate', 'shared'],
    'not even the outsider’s own draft',
  );
  t.deepEqual(names(await app.api.get('/api/v1/tags', { token: member.token })), ['climate', 'secret-plan', 'shared']);
  t.deepEqual(names(await app.api.get('/api/v1/tags', { token: app.adminToken })), ['climate', 'secret-plan', 'shared']);
  t.is((await app.api.get('/api/v1/tags')).body.count, 2);
});

test('a tag the caller may not see is 404 by name and by id', async (t) => {
  const secret = (await app.api.get('/api/v1/tags/secret-plan', { token: member.token })).body;
  t.is(secret.name, 'secret-plan');
  isProblem(t, await app.api.get('/api/v1/tags/secret-plan'), 404, 'not_found');
  isProblem(t, await app.api.get(`/api/v1/tags/${secret.id}`, { token: outsider.token }), 404, 'not_found');
  isProblem(t, await app.api.get('/api/v1/tags/draft-only', { token: outsider.token }), 404, 'not_found');
  isProblem(t, await app.api.get('/api/v1/tags/gone-tag', { token: app.adminToken }), 404, 'not_found');
  t.is((await app.api.get('/api/v1/tags/climate')).status, 200);
});

test('q filters tag names', async (t) => {
  t.deepEqual(names(await app.api.get('/api/v1/tags?q=LIM')), ['climate']);
});

test('packageCount counts the active datasets the caller may see, for organizations and categories', async (t) => {
  for (const [who, auth, expected] of [
    ['anonymous', {}, 1],
    ['outsider', { token: outsider.token }, 1],
    ['member', { token: member.token }, 2],
    ['sysadmin', { token: app.adminToken }, 2],
  ] as const) {
    t.is((await app.api.get('/api/v1/organizations/tags-org', auth)).body.packageCount, expected, `${who}: org detail`);
    const list = await app.api.get('/api/v1/organizations?q=tags-org', auth);
    t.is(list.body.results[0].packageCount, expected, `${who}: org list`);
    t.is((await app.api.get('/api/v1/groups/tags-cat', auth)).body.packageCount, expected, `${who}: category detail`);
  }
  const mine = await app.api.get('/api/v1/users/me/organizations', { token: member.token });
  t.like(mine.body.results[0], { name: 'tags-org', role: 'member', packageCount: 2 });
});
