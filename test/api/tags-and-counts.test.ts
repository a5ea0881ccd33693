import test from 'ava';
import { startTestAppWithPeople, type People, type TestApp } from '../helpers/app.ts';
import { as } from '../helpers/client.ts';
import { CATEGORIES, createGroup, groupWithMembers, ORGANIZATIONS } from '../helpers/groups.ts';
import { isProblem } from '../helpers/problem.ts';

let app: TestApp;
let people: People<'member' | 'outsider'>;

test.before(async (t) => {
  ({ app, people } = await startTestAppWithPeople('tags', ['member', 'outsider']));
  await groupWithMembers(t, app, ORGANIZATIONS, { name: 'tags-org' }, { member: people.member });
  await createGroup(t, app, CATEGORIES, { name: 'tags-cat' });
  const auth = { token: app.adminToken };
  const base = { ownerOrg: 'tags-org', licenseId: 'cc-by', groups: ['tags-cat'] };
  await app.api.post('/api/v1/packages', { ...base, name: 'tags-public', tags: ['climate', 'shared'] }, auth);
  await app.api.post('/api/v1/packages', { ...base, name: 'tags-private', private: true, tags: ['secret-plan', 'shared'] }, auth);
  await app.api.post('/api/v1/packages', { ...base, name: 'tags-deleted', tags: ['gone-tag'] }, auth);
  await app.api.delete('/api/v1/packages/tags-deleted', auth);
  await app.api.post('/api/v1/packages/drafts', { tags: ['draft-only'] }, as(people.outsider));
});
test.after.always(async () => app?.stop());

const names = (res: { body: { results: Array<{ name: string }> } }) => res.body.results.map((t) => t.name);

test('tags are those of the active datasets the caller may see: never drafts, deleted, or others’ private ones', async (t) => {
  t.deepEqual(names(await app.api.get('/api/v1/tags')), ['climate', 'shared']);
  t.deepEqual(names(await app.api.get('/api/v1/tags', as(people.outsider))), ['climate', 'shared'], 'not even the outsider’s own draft');
  t.deepEqual(names(await app.api.get('/api/v1/tags', as(people.member))), ['climate', 'secret-plan', 'shared']);
  t.deepEqual(names(await app.api.get('/api/v1/tags', { token: app.adminToken })), ['climate', 'secret-plan', 'shared']);
  t.is((await app.api.get('/api/v1/tags')).body.count, 2);
});

test('a tag the caller may not see is 404 by name and by id', async (t) => {
  const secret = (await app.api.get('/api/v1/tags/secret-plan', as(people.member))).body;
  t.is(secret.name, 'secret-plan');
  isProblem(t, await app.api.get('/api/v1/tags/secret-plan'), 404, 'not_found');
  isProblem(t, await app.api.get(`/api/v1/tags/${secret.id}`, as(people.outsider)), 404, 'not_found');
  isProblem(t, await app.api.get('/api/v1/tags/draft-only', as(people.outsider)), 404, 'not_found');
  isProblem(t, await app.api.get('/api/v1/tags/gone-tag', { token: app.adminToken }), 404, 'not_found');
  t.is((await app.api.get('/api/v1/tags/climate')).status, 200);
});

test('q filters tag names', async (t) => {
  t.deepEqual(names(await app.api.get('/api/v1/tags?q=LIM')), ['climate']);
});

test('packageCount counts the active datasets the caller may see, for organizations and categories', async (t) => {
  for (const [who, auth, expected] of [
    ['anonymous', {}, 1],
    ['outsider', as(people.outsider), 1],
    ['member', as(people.member), 2],
    ['sysadmin', { token: app.adminToken }, 2],
  ] as const) {
    t.is((await app.api.get('/api/v1/organizations/tags-org', auth)).body.packageCount, expected, `${who}: org detail`);
    const list = await app.api.get('/api/v1/organizations?q=tags-org', auth);
    t.is(list.body.results[0].packageCount, expected, `${who}: org list`);
    t.is((await app.api.get('/api/v1/groups/tags-cat', auth)).body.packageCount, expected, `${who}: category detail`);
  }
  const mine = await app.api.get('/api/v1/users/me/organizations', as(people.member));
  t.like(mine.body.results[0], { name: 'tags-org', role: 'member', packageCount: 2 });
});
