import test from 'ava';
import { semanticEnv, startTestApp, vectorsCaughtUp, type TestApp } from '../helpers/app.ts';
import type { Auth } from '../helpers/client.ts';

/**
 * Hybrid search with the real local model (all-MiniLM-L6-v2) and the embedded vector index: a query
 * that shares no word with its dataset still finds it, every filter and the visibility rule apply
 * inside the semantic retriever, and count, pages and facets agree.
 */

const API = '/api/v1';
let app: TestApp;
let sysadmin: Auth;
let member: Auth;
let outsider: Auth;

interface Listed {
  name: string;
  match?: {
    keyword: boolean;
    snippet?: { text: string; highlights: Array<[number, number]> };
    semantic: Array<{ index: string; score: number; text: string; resourceId?: string }>;
  };
}

const DATASETS = [
  {
    name: 'motor-vehicle-collisions',
    title: 'Motor Vehicle Collisions',
    org: 'transport',
    notes: 'Police-reported incidents involving automobiles on city streets, with injuries and fatalities by borough.',
    tags: ['transportation', 'public-safety'],
  },
  {
    name: 'highway-accident-reports',
    title: 'Highway Accident Reports',
    org: 'roads',
    notes: 'Reports of automobile wrecks on interstate highways, by county and year.',
    tags: ['roads'],
  },
  {
    name: 'hospital-inpatient-discharges',
    title: 'Hospital Inpatient Discharges',
    org: 'health',
    notes: 'Discharge counts and lengths of stay for hospital patients by diagnosis group.',
    tags: ['health'],
  },
  {
    name: 'school-lunch-programs',
    title: 'School Lunch Programs',
    org: 'health',
    notes: 'Participation in subsidized meal programs for pupils, by district.',
    tags: ['education', 'nutrition'],
  },
  {
    name: 'river-water-quality',
    title: 'River Water Quality',
    org: 'roads',
    notes: 'Dissolved oxygen, nitrates and turbidity measured at river monitoring stations.',
    tags: ['environment'],
  },
];

async function create(body: Record<string, unknown>) {
  const reply = await app.api.post(`${API}/packages`, { licenseId: 'cc-by-4.0', ...body }, sysadmin);
  if (reply.status !== 201) throw new Error(`create ${String(body.name)}: ${reply.text}`);
  return reply.body;
}

test.before(async () => {
  app = await startTestApp(semanticEnv());
  sysadmin = { token: app.adminToken };
  const [m, o] = await Promise.all([app.api.newUser('hybrid-member'), app.api.newUser('hybrid-outsider')]);
  member = { token: m.token };
  outsider = { token: o.token };
  for (const org of ['transport', 'roads', 'health', 'closed']) {
    if ((await app.api.post(`${API}/organizations`, { name: org }, sysadmin)).status !== 201) throw new Error(`create ${org}`);
  }
  await app.api.post(`${API}/organizations/transport/members`, { user: m.id, role: 'member' }, sysadmin);
  await app.api.post(`${API}/organizations/health/members`, { user: o.id, role: 'member' }, sysadmin);
  for (const d of DATASETS) await create({ name: d.name, title: d.title, ownerOrg: d.org, notes: d.notes, tags: d.tags });
  await create({
    name: 'fatal-crash-investigations',
    title: 'Fatal Crash Investigations',
    ownerOrg: 'transport',
    private: true,
    notes: 'Internal case files on deadly car crashes.',
  });
  await create({
    name: 'closed-traffic-counts',
    title: 'Traffic Crash Tallies',
    ownerOrg: 'closed',
    notes: 'Car crash tallies of a closed office.',
  });
  if ((await app.api.delete(`${API}/organizations/closed`, sysadmin)).status !== 204) throw new Error('soft-delete closed');
  await app.api.post(`${API}/packages/drafts`, { name: 'draft-crash-data', title: 'Car Crash Draft', ownerOrg: 'transport' }, sysadmin);
  // POST /packages answers once a dataset is found by keywords; the meaning follows through the vector backlog.
  await vectorsCaughtUp(app);
});
test.after.always(async () => app?.stop());

const search = async (query: string, auth: Auth = {}) => {
  const reply = await app.api.get(`${API}/packages?${query}`, auth);
  if (reply.status !== 200) throw new Error(`${query}: ${reply.status} ${reply.text}`);
  return reply.body as {
    count: number;
    results: Listed[];
    meta?: { semantic: string };
    facets?: Record<string, Array<{ name: string; count: number }>>;
  };
};
const names = (results: Listed[]) => results.map((r) => r.name);

test('a paraphrase with no shared word finds the collision datasets; keyword-only finds nothing', async (t) => {
  const hybrid = await search('q=car+crashes');
  t.is(hybrid.meta?.semantic, 'on');
  t.true(names(hybrid.results).includes('motor-vehicle-collisions'), JSON.stringify(names(hybrid.results)));
  t.true(names(hybrid.results).includes('highway-accident-reports'));
  t.false(names(hybrid.results).includes('school-lunch-programs'), 'an unrelated dataset stays out');
  const top = hybrid.results.find((r) => r.name === 'motor-vehicle-collisions')!;
  t.false(top.match!.keyword);
  t.true(
    top.match!.semantic.some((m) => m.index === 'packages' && m.score >= 0.3),
    JSON.stringify(top.match),
  );
  const keyword = await search('q=car+crashes&semantic=false');
  t.is(keyword.meta?.semantic, 'off');
  t.is(keyword.count, 0);
});

test('private, soft-deleted-organization and draft datasets stay out of semantic results for those who may not see them', async (t) => {
  const anonymous = names((await search('q=car+crashes&private=true&limit=100')).results);
  t.false(anonymous.includes('fatal-crash-investigations'));
  t.false(anonymous.includes('closed-traffic-counts'));
  t.false(anonymous.includes('draft-crash-data'));
  const asOutsider = names((await search('q=car+crashes&private=true&limit=100', outsider)).results);
  t.false(asOutsider.includes('fatal-crash-investigations'));
  const asMember = names((await search('q=car+crashes&private=true&limit=100', member)).results);
  t.true(asMember.includes('fatal-crash-investigations'));
  t.false(asMember.includes('closed-traffic-counts'));
  t.false(
    names((await search('q=car+crashes&limit=100', member)).results).includes('fatal-crash-investigations'),
    'without private=true: public only',
  );
  const asAdmin = names((await search('q=car+crashes&private=true&limit=100', sysadmin)).results);
  t.true(asAdmin.includes('fatal-crash-investigations'));
  t.true(asAdmin.includes('closed-traffic-counts'));
  t.false(asAdmin.includes('draft-crash-data'), 'drafts appear nowhere');
});

test('filters apply inside the semantic retriever: count, pages and facets agree', async (t) => {
  const roads = await search('q=car+crashes&organization=roads&include_facets=true');
  t.deepEqual(names(roads.results), ['highway-accident-reports']);
  t.is(roads.count, 1);
  t.deepEqual(
    roads.facets!.organization!.map((f) => [f.name, f.count]),
    [['roads', 1]],
  );
  const all = await search('q=car+crashes&include_facets=true&limit=100');
  t.is(all.count, all.results.length);
  t.is(
    all.facets!.organization!.reduce((n, f) => n + f.count, 0),
    all.count,
  );
  const pages = [
    ...names((await search('q=car+crashes&limit=1&offset=0')).results),
    ...names((await search('q=car+crashes&limit=1&offset=1')).results),
  ];
  t.deepEqual(pages, names(all.results).slice(0, 2));
  t.deepEqual(names((await search('q=car+crashes&tags=roads')).results), ['highway-accident-reports']);
  t.deepEqual(names((await search('q=car+crashes&tags=nutrition')).results), []);
});

test('an exact title still comes first, found by both retrievers, with a highlighted snippet', async (t) => {
  const { results } = await search('q=river+water+quality');
  t.is(results[0]!.name, 'river-water-quality');
  t.true(results[0]!.match!.keyword);
  t.true(results[0]!.match!.semantic.length > 0);
  const dissolved = (await search('q=dissolved+oxygen')).results.find((r) => r.name === 'river-water-quality')!;
  const { text, highlights } = dissolved.match!.snippet!;
  t.deepEqual(
    highlights.map(([s, e]) => text.slice(s, e).toLowerCase()),
    ['dissolved', 'oxygen'],
  );
});

test('a typo finds its dataset by keywords beside semantic candidates; the count is both', async (t) => {
  // "hosptal" matches no word: the typo fallback matches it to the title by trigrams, even though the
  // model brings candidates of its own. Without the fallback the dataset would be a semantic match only.
  const typo = await search('q=hosptal+inpatient');
  const found = typo.results.find((r) => r.name === 'hospital-inpatient-discharges');
  t.truthy(found, JSON.stringify(names(typo.results)));
  t.true(found!.match!.keyword);
  t.is(typo.count, typo.results.length);
  t.true(
    typo.results.some((r) => r.match!.semantic.length > 0),
    'the model brought candidates',
  );
  t.true(typo.results.filter((r) => !r.match!.keyword).every((r) => r.match!.semantic.length > 0));
  // Keyword-only, the same typo finds the same dataset and nothing else.
  t.deepEqual(names((await search('q=hosptal+inpatient&semantic=false')).results), ['hospital-inpatient-discharges']);
});
