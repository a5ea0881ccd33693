import test from 'ava';
import { startTestAppWithPeople, type TestApp } from '../helpers/app.ts';
import type { Auth, TestUser } from '../helpers/client.ts';

/**
 * The pages test/web/pages.test.ts leaves out, so that a full run sees every page of the table
 * (src/web/page-table.ts) succeed under the authorization audit: the categories, the registration
 * form and a link added to a draft through its form.
 */

let app: TestApp;
let editor: TestUser;

test.before(async () => {
  const started = await startTestAppWithPeople('webc', ['editor'] as const);
  app = started.app;
  editor = started.people.editor;
  const admin = app.sysadmin;
  await app.api.post('/api/v1/organizations', { name: 'webc-org', title: 'Webc Agency' }, admin);
  await app.api.post('/api/v1/organizations/webc-org/members', { user: editor.id, role: 'editor' }, admin);
  await app.api.post('/api/v1/groups', { name: 'webc-rivers', title: 'Rivers and lakes' }, admin);
  const made = await app.api.post(
    '/api/v1/packages',
    { name: 'webc-levels', title: 'Lake levels', ownerOrg: 'webc-org', licenseId: 'cc-by-4.0', groups: ['webc-rivers'] },
    admin,
  );
  if (made.status !== 201) throw new Error(`dataset: ${made.status} ${made.text}`);
});
test.after.always(async () => app?.stop());

const page = (path: string, auth: Auth = {}) => app.api.get(path, { ...auth, headers: { Accept: 'text/html', ...auth.headers } });

test('the categories page lists a category, and its page lists its public datasets', async (t) => {
  const list = await page('/group');
  t.is(list.status, 200);
  t.true(list.text.includes('Rivers and lakes'));
  const one = await page('/group/webc-rivers');
  t.is(one.status, 200);
  t.true(one.text.includes('Lake levels'));
});

test('the registration form is open to anonymous visitors', async (t) => {
  const form = await page('/register');
  t.is(form.status, 200);
  t.regex(form.text, /<form[^>]*action="\/register"/);
  t.regex(form.text, /name="_csrf"/);
});

test('an editor adds a link to a draft through its form and is sent back to the draft', async (t) => {
  const draft = await app.api.post('/api/v1/packages/drafts', { name: 'webc-draft', title: 'A draft', ownerOrg: 'webc-org' }, editor);
  t.is(draft.status, 201, draft.text);
  const login = await page('/login', { cookie: editor.cookie });
  const token = /name="_csrf" value="([^"]+)"/.exec(login.text)![1]!;
  const jar = [editor.cookie, login.headers.get('set-cookie')?.split(';')[0]].filter(Boolean).join('; ');
  const added = await fetch(`${app.url}/dataset/webc-draft/resources`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: jar, Origin: app.url },
    body: new URLSearchParams({ _csrf: token, name: 'levels.csv', url: 'https://example.org/levels.csv', format: 'CSV' }),
  });
  t.is(added.status, 302, await added.text());
  t.is(added.headers.get('location'), '/dataset/webc-draft/edit');
  const stored = await app.api.get('/api/v1/packages/webc-draft?state=draft', editor);
  t.deepEqual(
    stored.body.resources.map((r: { name: string; url: string }) => [r.name, r.url]),
    [['levels.csv', 'https://example.org/levels.csv']],
  );
});
