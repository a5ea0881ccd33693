import test, { type ExecutionContext } from 'ava';
import { startTestAppWithPeople, type People, type TestApp } from '../helpers/app.ts';
import { anonymous, as, type Auth } from '../helpers/client.ts';
import { groupWithMembers, CATEGORIES, ORGANIZATIONS } from '../helpers/groups.ts';
import { writeAllFacetKeys } from '../../src/search/facet-keys.ts';

/**
 * The facets of a listing without words or filters are summed from counts kept as datasets change
 * (src/search/facet-keys.ts). They are checked here against the visible datasets' own records, counted by
 * the test, for each kind of caller, after each kind of change: tags, license and record edited, a
 * resource added, made public, moved to another organization, put in a category, deleted, purged, and
 * an organization soft-deleted and restored. This file has its own database, so every count is its own.
 */

const PKG = '/api/v1/packages';
const ENERGY = 'http://publications.europa.eu/resource/authority/data-theme/ENER';
const FACETS = [
  'organization',
  'groups',
  'tags',
  'res_format',
  'license_id',
  'theme',
  'access_level',
  'frequency',
  'language',
  'publisher',
] as const;
type Facet = (typeof FACETS)[number];
interface FacetRow {
  name: string;
  title?: string;
  count: number;
}

let app: TestApp;
let people: People<'member' | 'outsider'>;

const FIXTURES: Record<string, Record<string, unknown>> = {
  'fc-alpha': {
    ownerOrg: 'fc-org-a',
    licenseId: 'cc-by',
    tags: ['fc-x', 'fc-y'],
    groups: ['fc-cat'],
    theme: [{ uri: ENERGY, label: 'Energy' }],
    language: ['de', 'en'],
    publisher: { name: 'fc office' },
    accessLevel: 'public',
    accrualPeriodicity: 'R/P1Y',
    resources: [
      { url: 'https://example.org/a.csv', format: 'CSV' },
      { url: 'https://example.org/a2.csv', format: 'CSV' },
      { url: 'https://example.org/a.json', format: 'JSON' },
    ],
  },
  'fc-beta': {
    ownerOrg: 'fc-org-a',
    private: true,
    licenseId: 'cc-by',
    tags: ['fc-x', 'fc-secret'],
    theme: [{ uri: ENERGY, label: 'Energy' }, { label: 'fc transport' }],
    language: ['de'],
    publisher: { name: 'fc hidden office' },
    resources: [{ url: 'https://example.org/b.xlsx', format: 'XLSX' }],
  },
  'fc-gamma': {
    ownerOrg: 'fc-org-b',
    licenseId: 'odc-by',
    tags: ['fc-y'],
    theme: [{ label: 'fc transport' }],
    language: ['fr'],
    resources: [{ url: 'https://example.org/c.geojson', format: 'GEOJSON' }],
  },
  'fc-delta': { ownerOrg: 'fc-org-b', licenseId: 'odc-by', tags: ['fc-z'], accessLevel: 'non-public' },
};

test.before(async (t) => {
  ({ app, people } = await startTestAppWithPeople('fc', ['member', 'outsider']));
  await groupWithMembers(t, app, ORGANIZATIONS, { name: 'fc-org-a', title: 'Org A' }, { member: people.member });
  await groupWithMembers(t, app, ORGANIZATIONS, { name: 'fc-org-b', title: 'Org B' }, {});
  await groupWithMembers(t, app, CATEGORIES, { name: 'fc-cat', title: 'The category' }, {});
  for (const [name, body] of Object.entries(FIXTURES)) {
    const res = await app.api.post(PKG, { name, title: name, ...body }, app.sysadmin);
    if (res.status !== 201) throw new Error(`${name}: ${res.status} ${res.text}`);
  }
  // A draft counts nowhere.
  const draft = await app.api.post(
    `${PKG}/drafts`,
    { name: 'fc-draft', ownerOrg: 'fc-org-a', tags: ['fc-draft-tag'], licenseId: 'mit' },
    app.sysadmin,
  );
  if (draft.status !== 201) throw new Error(`draft: ${draft.status} ${draft.text}`);
});
test.after.always(async () => app?.stop());

const CALLERS: Array<[string, () => Auth, boolean]> = [
  ['anonymous', () => anonymous, false],
  ['outsider with private', () => as(people.outsider), true],
  ['member', () => as(people.member), false],
  ['member with private', () => as(people.member), true],
  ['sysadmin', () => app.sysadmin, false],
  ['sysadmin with private', () => app.sysadmin, true],
];

/** The facets counted here from the records of the datasets the caller's listing holds. */
async function expectedFacets(auth: Auth, query: string): Promise<Record<Facet, FacetRow[]>> {
  const listed = await app.api.get(`${PKG}?limit=100${query}`, auth);
  if (listed.status !== 200) throw new Error(listed.text);
  const counts = Object.fromEntries(FACETS.map((f) => [f, new Map<string, FacetRow>()])) as Record<Facet, Map<string, FacetRow>>;
  const add = (facet: Facet, name: unknown, title?: string) => {
    if (typeof name !== 'string') return;
    const row = counts[facet].get(name) ?? { name, count: 0 };
    row.count += 1;
    if (title !== undefined && (row.title === undefined || title > row.title)) row.title = title;
    counts[facet].set(name, row);
  };
  for (const { name } of listed.body.results as Array<{ name: string }>) {
    const d = (await app.api.get(`${PKG}/${name}`, app.sysadmin)).body;
    if (d.organization) add('organization', d.organization.name, d.organization.title);
    for (const g of d.groups) add('groups', g.name, g.title);
    for (const tag of d.tags) add('tags', tag);
    for (const format of new Set<string>(d.resources.map((r: { format: string | null }) => r.format).filter(Boolean)))
      add('res_format', format);
    add('license_id', d.licenseId);
    const themes = new Map<string, string | undefined>();
    for (const theme of d.theme ?? []) themes.set(theme.uri ?? theme.label, theme.label);
    for (const [theme, label] of themes) add('theme', theme, label);
    add('access_level', d.accessLevel);
    add('frequency', d.accrualPeriodicity);
    for (const language of new Set<string>(d.language ?? [])) add('language', language);
    add('publisher', d.publisher?.name);
  }
  const order = (a: FacetRow, b: FacetRow) => b.count - a.count || (a.name < b.name ? -1 : 1);
  return Object.fromEntries(
    FACETS.map((facet) => [
      facet,
      [...counts[facet].values()]
        .map((row) =>
          facet === 'organization' || facet === 'groups' || (row.title && row.title !== row.name)
            ? row
            : { name: row.name, count: row.count },
        )
        .sort(order),
    ]),
  ) as Record<Facet, FacetRow[]>;
}

/** Both ways a listing counts: kept counts without filters, the datasets' kept values with one. */
const LISTINGS = ['', '&tags=fc-x', '&language=de'];

async function facetsMatchRecords(t: ExecutionContext, step: string) {
  for (const [caller, auth, withPrivate] of CALLERS) {
    for (const filter of LISTINGS) {
      const query = `${filter}${withPrivate ? '&private=true' : ''}`;
      const reply = await app.api.get(`${PKG}?include_facets=true&facet_limit=100&limit=1${query}`, auth());
      t.is(reply.status, 200, reply.text);
      const expected = await expectedFacets(auth(), query);
      t.is(
        reply.body.count,
        (await app.api.get(`${PKG}?limit=100${query}`, auth())).body.results.length,
        `${step}: ${caller}${query}, count`,
      );
      for (const facet of FACETS) t.deepEqual(reply.body.facets[facet], expected[facet], `${step}: ${caller}${query}, ${facet}`);
    }
  }
  // Deleted datasets are no longer kept: their values are worked out when asked for.
  const deleted = await app.api.get(`${PKG}?include_facets=true&facet_limit=100&state=deleted&private=true`, app.sysadmin);
  t.is(deleted.status, 200, deleted.text);
  const expected = await expectedFacets(app.sysadmin, '&state=deleted&private=true');
  for (const facet of FACETS) t.deepEqual(deleted.body.facets[facet], expected[facet], `${step}: deleted, ${facet}`);
}

/** A fixture's fields as PUT replaces them (resources have their own routes). */
function fieldsOf(name: string, changes: Record<string, unknown>) {
  const { resources: _resources, ...fields } = FIXTURES[name]!;
  return { ...fields, name, title: name, ...changes };
}

async function ok(reply: { status: number; text: string }, status = 200) {
  if (reply.status !== status) throw new Error(`${reply.status} ${reply.text}`);
}

test.serial('kept facet counts match the records after each kind of change, for every caller', async (t) => {
  await facetsMatchRecords(t, 'created');
  // Sanity: the counts are not empty, and the private dataset's values are the members' alone.
  const anonymousTags = (await app.api.get(`${PKG}?include_facets=true`, anonymous)).body.facets.tags;
  t.true(anonymousTags.some((tag: FacetRow) => tag.name === 'fc-x'));
  t.false(anonymousTags.some((tag: FacetRow) => tag.name === 'fc-secret' || tag.name === 'fc-draft-tag'));

  await ok(
    await app.api.put(
      `${PKG}/fc-alpha`,
      fieldsOf('fc-alpha', { tags: ['fc-x', 'fc-w'], licenseId: 'mit', language: ['en'] }),
      app.sysadmin,
    ),
  );
  await facetsMatchRecords(t, 'tags, license and language edited');

  const gamma = (await app.api.get(`${PKG}/fc-gamma`, app.sysadmin)).body;
  await ok(await app.api.post(`${PKG}/${gamma.id}/resources`, { url: 'https://example.org/c.csv', format: 'CSV' }, app.sysadmin), 201);
  await facetsMatchRecords(t, 'a resource added');

  await ok(await app.api.put(`${PKG}/fc-beta`, fieldsOf('fc-beta', { private: false }), app.sysadmin));
  await facetsMatchRecords(t, 'made public');

  await ok(await app.api.put(`${PKG}/fc-gamma`, fieldsOf('fc-gamma', { ownerOrg: 'fc-org-a', groups: ['fc-cat'] }), app.sysadmin));
  await facetsMatchRecords(t, 'moved and put in a category');

  await ok(await app.api.delete(`${PKG}/fc-delta`, app.sysadmin), 204);
  await facetsMatchRecords(t, 'deleted');

  await ok(await app.api.delete(`${ORGANIZATIONS}/fc-org-b`, app.sysadmin), 204);
  await facetsMatchRecords(t, 'organization soft-deleted');
  await ok(await app.api.post(`${ORGANIZATIONS}/fc-org-b/restore`, undefined, app.sysadmin));
  await facetsMatchRecords(t, 'organization restored');

  await ok(await app.api.post(`${PKG}/fc-delta/purge`, undefined, app.sysadmin), 204);
  await ok(await app.api.put(`${ORGANIZATIONS}/fc-org-a`, { name: 'fc-org-a', title: 'Org A renamed' }, app.sysadmin));
  await facetsMatchRecords(t, 'purged, and an organization retitled');
});

test.serial('the whole catalog written at once (a bulk load, an upgrade’s backfill) keeps what the syncs kept', async (t) => {
  const em = () => app.almanac.services.orm.em.fork();
  const kept = () => em().execute<unknown[]>('select dataset_id, scope, private, keys from dataset_facet_keys order by dataset_id');
  const bySyncs = await kept();
  t.true(bySyncs.length > 0);
  // Taken away (the counts follow, through the triggers), then written for every dataset in one call.
  await em().execute('delete from dataset_facet_keys');
  t.deepEqual(await kept(), []);
  await writeAllFacetKeys(em());
  t.deepEqual(await kept(), bySyncs);
  await facetsMatchRecords(t, 'rewritten whole');
});
