import test from 'ava';
import { isProblem } from '../helpers/problem.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import type { Auth } from '../helpers/client.ts';

/**
 * Soft-deleting an organization hides its datasets from everyone but sysadmins, on every read path, and
 * a restore brings back exactly what was there. This file has its own database, so the global counts
 * (resources, formats, tags) are the fixtures' alone.
 */

const API = '/api/v1';
let app: TestApp;
let member: Auth;
let editor: Auth;
let sysadmin: Auth;
let names: { public: string; private: string; draft: string; elsewhere: string };

test.before(async () => {
  app = await startTestApp();
  sysadmin = { token: app.adminToken };
  const [m, e] = await Promise.all([app.api.newUser('gone-member'), app.api.newUser('gone-editor')]);
  member = { token: m.token };
  editor = { token: e.token };
  for (const org of ['gone-org', 'kept-org']) {
    if ((await app.api.post(`${API}/organizations`, { name: org }, sysadmin)).status !== 201) throw new Error(`create ${org}`);
  }
  await app.api.post(`${API}/organizations/gone-org/members`, { user: m.id, role: 'member' }, sysadmin);
  await app.api.post(`${API}/organizations/gone-org/members`, { user: e.id, role: 'editor' }, sysadmin);
  const create = async (name: string, org: string, isPrivate: boolean) => {
    const body = {
      name,
      title: `Ledger ${name}`,
      ownerOrg: org,
      licenseId: 'cc-by-4.0',
      private: isPrivate,
      tags: [`tag-${name}`],
      resources: [{ urlType: 'link', url: `https://example.org/${name}.csv`, format: `FMT-${name}` }],
    };
    const reply = await app.api.post(`${API}/packages`, body, sysadmin);
    if (reply.status !== 201) throw new Error(`create ${name}: ${reply.text}`);
    return reply.body.name as string;
  };
  names = {
    public: await create('ledger-public', 'gone-org', false),
    private: await create('ledger-private', 'gone-org', true),
    elsewhere: await create('ledger-elsewhere', 'kept-org', false),
    draft: (await app.api.post(`${API}/packages/drafts`, { name: 'ledger-draft', ownerOrg: 'gone-org' }, editor)).body.name,
  };
});
test.after.always(async () => app?.stop());

/** What each caller sees of the catalog, through every read path that counts or lists datasets. */
async function view(auth: Auth) {
  const list = await app.api.get(`${API}/packages?private=true&include_facets=true&limit=100`, auth);
  const search = await app.api.get(`${API}/packages?q=ledger&private=true&limit=100`, auth);
  const drafts = auth.token ? await app.api.get(`${API}/packages?state=draft&limit=100`, auth) : undefined;
  const tags = await app.api.get(`${API}/tags?q=tag-ledger&limit=100`, auth);
  const count = await app.api.get(`${API}/resources/count`, auth);
  const formats = await app.api.get(`${API}/resources/formats`, auth);
  const details = Object.fromEntries(
    await Promise.all(
      ['public', 'private', 'elsewhere'].map(async (k) => [
        k,
        (await app.api.get(`${API}/packages/${names[k as keyof typeof names]}`, auth)).status,
      ]),
    ),
  );
  const sorted = (rows: Array<{ name?: string; format?: string }>) => rows.map((r) => r.name ?? r.format).sort();
  return {
    list: sorted(list.body.results),
    search: sorted(search.body.results),
    drafts: drafts ? sorted(drafts.body.results) : undefined,
    facetTags: sorted(list.body.facets.tags),
    tags: sorted(tags.body.results),
    resources: count.body.count,
    formats: sorted(formats.body.results),
    details,
  };
}

const everything = (withPrivate: boolean, withDraft: boolean) => ({
  list: ['ledger-elsewhere', 'ledger-public', ...(withPrivate ? ['ledger-private'] : [])].sort(),
  search: ['ledger-elsewhere', 'ledger-public', ...(withPrivate ? ['ledger-private'] : [])].sort(),
  drafts: withDraft ? ['ledger-draft'] : [],
  facetTags: ['tag-ledger-elsewhere', 'tag-ledger-public', ...(withPrivate ? ['tag-ledger-private'] : [])].sort(),
  tags: ['tag-ledger-elsewhere', 'tag-ledger-public', ...(withPrivate ? ['tag-ledger-private'] : [])].sort(),
  resources: withPrivate ? 3 : 2,
  formats: ['FMT-LEDGER-ELSEWHERE', 'FMT-LEDGER-PUBLIC', ...(withPrivate ? ['FMT-LEDGER-PRIVATE'] : [])].sort(),
  details: { public: 200, private: withPrivate ? 200 : 404, elsewhere: 200 },
});

const onlyElsewhere = {
  list: ['ledger-elsewhere'],
  search: ['ledger-elsewhere'],
  facetTags: ['tag-ledger-elsewhere'],
  tags: ['tag-ledger-elsewhere'],
  resources: 1,
  formats: ['FMT-LEDGER-ELSEWHERE'],
  details: { public: 404, private: 404, elsewhere: 200 },
};

test.serial('before the delete, each caller sees what the visibility rule gives it', async (t) => {
  t.deepEqual(await view({}), { ...everything(false, false), drafts: undefined });
  t.deepEqual(await view(member), everything(true, false));
  t.deepEqual(await view(editor), everything(true, true));
  t.deepEqual(await view(sysadmin), everything(true, false));
});

test.serial('a soft-deleted organization hides its datasets from all but sysadmins; restore brings them back', async (t) => {
  t.is((await app.api.delete(`${API}/organizations/gone-org`, sysadmin)).status, 204);

  t.deepEqual(await view({}), { ...onlyElsewhere, drafts: undefined });
  t.deepEqual(await view(member), { ...onlyElsewhere, drafts: [] });
  t.deepEqual(await view(editor), { ...onlyElsewhere, drafts: [] }, 'its editor loses its drafts too, with its role');
  t.deepEqual(await view(sysadmin), everything(true, false), 'a sysadmin still sees them, to restore or purge');
  isProblem(t, await app.api.get(`${API}/packages/${names.draft}?state=draft`, editor), 404, 'not_found');
  isProblem(t, await app.api.put(`${API}/packages/${names.draft}`, { title: 'edited' }, editor), 404, 'not_found');

  t.is((await app.api.post(`${API}/organizations/gone-org/restore`, undefined, sysadmin)).status, 200);
  t.deepEqual(await view({}), { ...everything(false, false), drafts: undefined });
  t.deepEqual(await view(member), everything(true, false));
  t.deepEqual(await view(editor), everything(true, true));
  const detail = await app.api.get(`${API}/packages/${names.public}`, {});
  t.like(detail.body, { state: 'active', private: false, tags: ['tag-ledger-public'] });
});
