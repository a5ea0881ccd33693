import test from 'ava';
import { startTestApp, until, type TestApp } from '../helpers/app.ts';
import type { Reply } from '../helpers/client.ts';

/**
 * One Almanac instance harvests another, as a real harvester would: through the CKAN Action API (the
 * source's root) and through its DCAT-AP feed (Turtle, two datasets a page along Hydra `next`). The
 * source holds public datasets with tags, categories and link resources, beside a draft, a private and a
 * deleted one, which must stay behind.
 */

let source: TestApp;
let harvester: TestApp;

interface Dataset {
  id: string;
  name: string;
  title: string;
  private: boolean;
  organization: { name: string } | null;
  tags: string[];
  groups: Array<{ name: string }>;
  resources: Array<{ url: string; name: string | null; format: string | null }>;
  harvest: { sourceId: string; remoteId: string } | null;
}

const PUBLIC = ['river-levels', 'air-quality', 'bus-stops', 'school-meals', 'tree-census'];

test.before(async () => {
  [source, harvester] = await Promise.all([startTestApp(), startTestApp()]);
  const admin = source.sysadmin;
  for (const [name, title] of [
    ['city-water', 'City water board'],
    ['city-transport', 'City transport'],
  ]) {
    const org = await source.api.post('/api/v1/organizations', { name, title }, admin);
    if (org.status !== 201) throw new Error(org.text);
  }
  for (const [name, title] of [
    ['environment', 'Environment'],
    ['mobility', 'Mobility'],
  ]) {
    const group = await source.api.post('/api/v1/groups', { name, title }, admin);
    if (group.status !== 201) throw new Error(group.text);
  }
  const make = async (name: string, extra: Record<string, unknown> = {}) => {
    const reply = await source.api.post(
      '/api/v1/packages',
      {
        name,
        title: `The ${name.replace(/-/g, ' ')}`,
        notes: `About ${name}.`,
        ownerOrg: name.startsWith('bus') || name.startsWith('school') ? 'city-transport' : 'city-water',
        licenseId: 'cc-by',
        tags: [name.split('-')[0]!, 'open-data'],
        groups: name.startsWith('bus') ? ['mobility'] : ['environment'],
        resources: [
          { url: `https://data.example.org/${name}.csv`, name: `${name} (CSV)`, format: 'CSV' },
          { url: `https://data.example.org/${name}.json`, name: `${name} (JSON)`, format: 'JSON' },
        ],
        ...extra,
      },
      admin,
    );
    if (reply.status !== 201) throw new Error(reply.text);
    return reply.body;
  };
  for (const name of PUBLIC) await make(name);
  await make('secret-plans', { private: true });
  const gone = await make('old-survey');
  await source.api.delete(`/api/v1/packages/${gone.id}`, admin);
  const draft = await source.api.post('/api/v1/packages/drafts', { name: 'unfinished-draft', title: 'Unfinished' }, admin);
  if (draft.status !== 201) throw new Error(draft.text);
});
test.after.always(async () => {
  await harvester?.stop();
  await source?.stop();
});

async function runToEnd(app: TestApp, sourceId: string) {
  const started = await app.api.post(`/api/v1/admin/harvest-sources/${sourceId}/run`, undefined, app.sysadmin);
  if (started.status !== 202) throw new Error(started.text);
  let reply!: Reply;
  await until(
    'the harvest run ends',
    async () => {
      reply = await app.api.get(`/api/v1/admin/harvest-sources/${sourceId}`, app.sysadmin);
      return reply.body.lastRun?.runId === started.body.runId && reply.body.lastRun.status !== 'running';
    },
    120_000,
  );
  return reply.body.lastRun;
}

/** Every active dataset of an app, in detail, by name. */
async function datasetsOf(app: TestApp): Promise<Map<string, Dataset>> {
  const list = await app.api.get('/api/v1/packages?limit=100&private=true', app.sysadmin);
  const details = await Promise.all(
    list.body.results.map(async (d: { id: string }) => (await app.api.get(`/api/v1/packages/${d.id}`, app.sysadmin)).body as Dataset),
  );
  return new Map(details.map((d) => [d.name, d]));
}

/** What a harvest must carry over: fields, organization, tags, categories, resources. */
const essence = (d: Dataset, opts: { org?: boolean; groups?: boolean } = {}) => ({
  title: d.title,
  tags: [...d.tags].sort(),
  ...(opts.org === false ? {} : { organization: d.organization?.name ?? null }),
  ...(opts.groups === false ? {} : { groups: d.groups.map((g) => g.name).sort() }),
  resources: d.resources.map((r) => r.url).sort(),
});

test.serial(
  'through the CKAN API: the same public datasets, organizations, tags, categories and resources; draft, private and deleted stay behind',
  async (t) => {
    const created = await harvester.api.post(
      '/api/v1/admin/harvest-sources',
      { name: 'other-almanac', type: 'ckan', url: source.url },
      harvester.sysadmin,
    );
    t.is(created.status, 201, created.text);
    const id = created.body.id;
    const run = await runToEnd(harvester, id);
    t.like(run, { status: 'succeeded', seen: PUBLIC.length, created: PUBLIC.length, failed: 0, errors: [] });

    const there = await datasetsOf(source);
    const here = await datasetsOf(harvester);
    t.deepEqual([...here.keys()].sort(), [...PUBLIC].sort());
    for (const name of PUBLIC) {
      t.deepEqual(essence(here.get(name)!), essence(there.get(name)!), name);
      t.is(here.get(name)!.harvest?.sourceId, id);
    }
    const orgs = await harvester.api.get('/api/v1/organizations', harvester.sysadmin);
    t.deepEqual(orgs.body.results.map((o: { name: string }) => o.name).sort(), ['city-transport', 'city-water']);

    // Again: nothing changed at the source, so nothing changes here.
    const second = await runToEnd(harvester, id);
    t.like(second, { status: 'succeeded', created: 0, updated: 0, failed: 0, removed: 0 });
    const after = await datasetsOf(harvester);
    for (const name of PUBLIC) t.deepEqual(essence(after.get(name)!), essence(here.get(name)!), name);

    // One title changed at the source: the next run counts one update and carries it over.
    const edited = await source.api.put(
      `/api/v1/packages/${there.get('bus-stops')!.id}`,
      { ...stripForPut(there.get('bus-stops')!), title: 'Every bus stop' },
      source.sysadmin,
    );
    t.is(edited.status, 200, edited.text);
    const third = await runToEnd(harvester, id);
    t.like(third, { status: 'succeeded', created: 0, updated: 1, failed: 0 });
    t.is((await datasetsOf(harvester)).get('bus-stops')!.title, 'Every bus stop');
  },
);

test.serial(
  'through DCAT-AP (Turtle, two datasets a page): the same public datasets, tags and resources, into the organization given',
  async (t) => {
    const org = await harvester.api.post('/api/v1/organizations', { name: 'from-dcat', title: 'From DCAT-AP' }, harvester.sysadmin);
    t.is(org.status, 201, org.text);
    const created = await harvester.api.post(
      '/api/v1/admin/harvest-sources',
      { name: 'other-almanac-dcat', type: 'dcat-ap', url: `${source.url}/catalog.ttl?page_size=2`, organization: 'from-dcat' },
      harvester.sysadmin,
    );
    t.is(created.status, 201, created.text);
    const id = created.body.id;
    const run = await runToEnd(harvester, id);
    t.like(run, { status: 'succeeded', seen: PUBLIC.length, created: PUBLIC.length, failed: 0 });
    t.true(run.pages >= 3, `${run.pages} pages`);

    const there = await datasetsOf(source);
    const mine = [...(await datasetsOf(harvester)).values()].filter((d) => d.harvest?.sourceId === id);
    const byTitle = new Map(mine.map((d) => [d.title, d]));
    t.deepEqual([...byTitle.keys()].sort(), PUBLIC.map((name) => there.get(name)!.title).sort());
    for (const name of PUBLIC) {
      const original = there.get(name)!;
      const copy = byTitle.get(original.title)!;
      t.deepEqual(essence(copy, { org: false, groups: false }), essence(original, { org: false, groups: false }), name);
      t.is(copy.organization?.name, 'from-dcat');
    }

    const second = await runToEnd(harvester, id);
    t.like(second, { status: 'succeeded', seen: PUBLIC.length, created: 0, updated: 0, unchanged: PUBLIC.length, removed: 0 });
  },
);

/** The writable fields of a dataset record, for a PUT that changes one of them. */
function stripForPut(dataset: Dataset) {
  const d = dataset as Dataset & Record<string, unknown>;
  return {
    name: d.name,
    title: d.title,
    notes: d.notes,
    ownerOrg: (d.organization as { id: string } | null)?.id,
    licenseId: d.licenseId,
    private: d.private,
    tags: d.tags,
    groups: d.groups.map((g) => g.name),
  };
}
