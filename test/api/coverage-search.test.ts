import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { fieldPaths, isProblem } from '../helpers/problem.ts';
import { startTestAppWithPeople, type People, type TestApp } from '../helpers/app.ts';
import { anonymous, as, type Auth, type TestUser } from '../helpers/client.ts';
import { ckanGet, resultOf } from '../helpers/ckan.ts';
import { ORGANIZATIONS, groupWithMembers } from '../helpers/groups.ts';

/**
 * Issue 28 §3 over HTTP: the coverage filters (bbox, temporal_start/temporal_end) and the record filters
 * and facets (theme, access level, frequency, language, publisher) in REST, the CKAN API, MCP and the
 * web search page. A private dataset in range is never listed, counted or faceted for a caller who may
 * not see it, and is for a member of its organization.
 */

let app: TestApp;
let people: People<'editor' | 'member' | 'outsider'>;
const PKG = '/api/v1/packages';
/** Every fixture's title has this word, so MCP's search (which needs words) finds them all. */
const WORD = 'glacier';

/** The fixtures: name → body. Each name says what its coverage is. */
const FIXTURES = {
  'cov-berlin': {
    temporal: [{ start: '2010', end: '2012-06-30' }],
    spatial: [{ name: 'Berlin', bbox: [13.08, 52.33, 13.76, 52.67] }],
    theme: [{ uri: 'http://publications.europa.eu/resource/authority/data-theme/ENER', label: 'Energy' }],
    accessLevel: 'public',
    accrualPeriodicity: 'R/P1Y',
    language: ['de'],
    publisher: { name: 'Berlin Statistics Office' },
  },
  'cov-paris-point': {
    temporal: [{ start: '2015-03' }],
    spatial: [{ geometry: { type: 'Point', coordinates: [2.35, 48.85] } }],
    theme: [{ label: 'Transport' }],
    accessLevel: 'restricted public',
    language: ['fr'],
  },
  'cov-open-start': { temporal: [{ end: '2005' }], accessLevel: 'non-public' },
  'cov-none': { theme: [{ label: 'Energy' }] },
  'cov-private-berlin': {
    private: true,
    temporal: [{ start: '2011-01-01', end: '2011-12-31' }],
    spatial: [{ bbox: [13.2, 52.4, 13.5, 52.6] }],
    theme: [{ uri: 'http://publications.europa.eu/resource/authority/data-theme/ENER', label: 'Energy' }],
    accessLevel: 'public',
    language: ['de'],
    publisher: { name: 'Secret Office' },
  },
} as const;
type Name = keyof typeof FIXTURES;
const PUBLIC_NAMES = (Object.keys(FIXTURES) as Name[]).filter((n) => !('private' in FIXTURES[n]));

test.before(async (t) => {
  ({ app, people } = await startTestAppWithPeople('cov', ['editor', 'member', 'outsider']));
  const org = await groupWithMembers(t, app, ORGANIZATIONS, { name: 'cov-org' }, { editor: people.editor, member: people.member });
  for (const [name, body] of Object.entries(FIXTURES)) {
    const res = await app.api.post(
      PKG,
      { name, title: `${name} ${WORD} survey`, ownerOrg: org.name, licenseId: 'cc-by-4.0', ...body },
      as(people.editor),
    );
    if (res.status !== 201) throw new Error(`${name}: ${res.status} ${res.text}`);
  }
});
test.after.always(async () => app?.stop());

const names = (body: { results: Array<{ name: string }> }) => body.results.map((d) => d.name).sort();

async function list(query: string, auth: Auth = anonymous) {
  const res = await app.api.get(`${PKG}?${query}&limit=100`, auth);
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${res.text}`);
  return res.body as { count: number; results: Array<{ name: string }>; facets?: Record<string, Array<{ name: string; count: number }>> };
}

const GERMANY = 'bbox=5.8,47.2,15.1,55.1';

test('REST: bbox keeps the datasets whose coverage box intersects it, and excludes those without coverage', async (t) => {
  const found = await list(GERMANY);
  t.deepEqual(names(found), ['cov-berlin']);
  t.is(found.count, 1);
  // A box around Paris reaches the point geometry (a degenerate box).
  t.deepEqual(names(await list('bbox=2,48.5,2.5,49')), ['cov-paris-point']);
  // A box touching the point exactly still intersects it.
  t.deepEqual(names(await list('bbox=2.35,48.85,3,49')), ['cov-paris-point']);
  t.deepEqual(names(await list('bbox=-180,-90,180,90')), ['cov-berlin', 'cov-paris-point']);
});

test('REST: the temporal filter is an overlap, with open periods on either side', async (t) => {
  t.deepEqual(names(await list('temporal_start=2011&temporal_end=2011')), ['cov-berlin']);
  // Open end: the Paris period (from March 2015) reaches every later date.
  t.deepEqual(names(await list('temporal_start=2030-01-01')), ['cov-paris-point']);
  // Open start: the period that ends in 2005 reaches every earlier date.
  t.deepEqual(names(await list('temporal_end=1900')), ['cov-open-start']);
  // temporal_end=2015 keeps a period that starts in March 2015 (the end date is read to its last instant).
  t.deepEqual(names(await list('temporal_start=2013&temporal_end=2015')), ['cov-paris-point']);
  t.deepEqual(names(await list('temporal_start=2012-07-01&temporal_end=2014-12-31')), []);
  // A dataset without any period is outside every temporal filter, however wide.
  t.deepEqual(names(await list('temporal_start=0001&temporal_end=9999')), ['cov-berlin', 'cov-open-start', 'cov-paris-point']);
});

test('REST: bbox and temporal together, with the other filters, are ANDed', async (t) => {
  t.deepEqual(names(await list(`${GERMANY}&temporal_start=2012`)), ['cov-berlin']);
  t.deepEqual(names(await list(`${GERMANY}&temporal_start=2013`)), []);
  t.deepEqual(names(await list(`${GERMANY}&organization=cov-org&access_level=public`)), ['cov-berlin']);
});

test('REST: a private dataset in range is never listed, counted or faceted for anonymous callers or non-members', async (t) => {
  for (const auth of [anonymous, as(people.outsider)]) {
    const found = await list(`${GERMANY}&temporal_start=2011&private=true&include_facets`, auth);
    t.deepEqual(names(found), ['cov-berlin']);
    t.is(found.count, 1);
    t.deepEqual(found.facets!.publisher, [{ name: 'Berlin Statistics Office', count: 1 }]);
    t.deepEqual(
      found.facets!.theme!.map((f) => [f.name, f.count]),
      [['http://publications.europa.eu/resource/authority/data-theme/ENER', 1]],
    );
    t.deepEqual(
      found.facets!.organization!.map((f) => f.count),
      [1],
    );
  }
});

test('REST: a member of the organization sees, counts and facets the private dataset in range', async (t) => {
  const found = await list(`${GERMANY}&temporal_start=2011&private=true&include_facets`, as(people.member));
  t.deepEqual(names(found), ['cov-berlin', 'cov-private-berlin']);
  t.is(found.count, 2);
  t.deepEqual(
    found.facets!.publisher!.map((f) => [f.name, f.count]),
    [
      ['Berlin Statistics Office', 1],
      ['Secret Office', 1],
    ],
  );
  t.deepEqual(found.facets!.language, [{ name: 'de', count: 2 }]);
  t.deepEqual(
    found.facets!.organization!.map((f) => f.count),
    [2],
  );
  // Without private=true the listing stays public-only, for members too.
  t.deepEqual(names(await list(GERMANY, as(people.member))), ['cov-berlin']);
});

test('REST: record filters and facets for theme, access level, frequency, language and publisher', async (t) => {
  const all = await list('include_facets');
  t.deepEqual(all.facets!.theme!.map((f) => [f.name, f.count]).sort(), [
    ['Energy', 1],
    ['Transport', 1],
    ['http://publications.europa.eu/resource/authority/data-theme/ENER', 1],
  ]);
  t.like(
    all.facets!.theme!.find((f) => f.name.endsWith('ENER')),
    { title: 'Energy' },
  );
  t.deepEqual(
    all.facets!.access_level!.map((f) => [f.name, f.count]),
    [
      ['non-public', 1],
      ['public', 1],
      ['restricted public', 1],
    ],
  );
  t.deepEqual(all.facets!.frequency, [{ name: 'R/P1Y', count: 1 }]);
  t.deepEqual(
    all.facets!.language!.map((f) => f.name),
    ['de', 'fr'],
  );
  // A theme is found by its label or its IRI.
  t.deepEqual(names(await list('theme=Energy')), ['cov-berlin', 'cov-none']);
  t.deepEqual(names(await list('theme=http://publications.europa.eu/resource/authority/data-theme/ENER')), ['cov-berlin']);
  t.deepEqual(names(await list('access_level=non-public&access_level=restricted%20public')), ['cov-open-start', 'cov-paris-point']);
  t.deepEqual(names(await list('frequency=R/P1Y')), ['cov-berlin']);
  t.deepEqual(names(await list('language=fr')), ['cov-paris-point']);
  t.deepEqual(names(await list('publisher=Berlin%20Statistics%20Office')), ['cov-berlin']);
  t.deepEqual(names(await list('publisher=Secret%20Office')), []);
  t.deepEqual(names(await list('publisher=Secret%20Office&private=true', as(people.member))), ['cov-private-berlin']);
});

test('REST: with q, the filters hold for the search too', async (t) => {
  const found = await list(`q=${WORD}&${GERMANY}&private=true`, as(people.outsider));
  t.deepEqual(names(found), ['cov-berlin']);
  t.is(found.count, 1);
  t.deepEqual(names(await list(`q=${WORD}&theme=Energy`)), ['cov-berlin', 'cov-none']);
});

const BAD: Array<[string, string, string]> = [
  ['a bbox of three numbers', 'bbox=1,2,3', 'bbox'],
  ['a bbox that is not numbers', 'bbox=a,b,c,d', 'bbox'],
  ['a bbox with west greater than east', 'bbox=10,0,5,1', 'bbox'],
  ['a bbox with south greater than north', 'bbox=0,10,5,1', 'bbox'],
  ['a bbox out of range', 'bbox=0,-91,1,1', 'bbox'],
  ['a longitude out of range', 'bbox=-181,0,1,1', 'bbox'],
  ['a period that ends before it starts', 'temporal_start=2012&temporal_end=2011-12-31', 'temporal_end'],
  ['an unparseable date', 'temporal_start=yesterday', 'temporal_start'],
  ['a day the calendar lacks', 'temporal_end=2010-02-30', 'temporal_end'],
];
for (const [what, query, path] of BAD) {
  test(`REST: ${what} is a 400 that names ${path}`, async (t) => {
    const res = await app.api.get(`${PKG}?${query}`);
    isProblem(t, res, 400, 'invalid_parameters');
    t.deepEqual(fieldPaths(res), [path]);
  });
}

// ---- CKAN package_search ----

const ckanNames = (result: { results: Array<{ name: string }> }) => result.results.map((d) => d.name).sort();

test('CKAN: ext_bbox, ext_startdate/ext_enddate and fq on record fields; facets for them', async (t) => {
  t.deepEqual(ckanNames(resultOf(await ckanGet(app.api, 'package_search', { ext_bbox: '5.8,47.2,15.1,55.1' }))), ['cov-berlin']);
  t.deepEqual(ckanNames(resultOf(await ckanGet(app.api, 'package_search', { ext_startdate: '2030' }))), ['cov-paris-point']);
  t.deepEqual(
    ckanNames(
      resultOf(await ckanGet(app.api, 'package_search', { ext_startdate: '2011', ext_enddate: '2011', fq: 'access_level:public' })),
    ),
    ['cov-berlin'],
  );
  t.deepEqual(ckanNames(resultOf(await ckanGet(app.api, 'package_search', { fq: 'theme:Energy' }))), ['cov-berlin', 'cov-none']);
  t.deepEqual(ckanNames(resultOf(await ckanGet(app.api, 'package_search', { fq: 'language:(fr OR de)' }))), [
    'cov-berlin',
    'cov-paris-point',
  ]);
  const faceted = resultOf(
    await ckanGet(app.api, 'package_search', { 'facet.field': '["publisher","access_level","frequency"]', ext_bbox: '-180,-90,180,90' }),
  );
  t.deepEqual(faceted.facets.publisher, { 'Berlin Statistics Office': 1 });
  t.deepEqual(faceted.facets.access_level, { public: 1, 'restricted public': 1 });
  t.deepEqual(faceted.facets.frequency, { 'R/P1Y': 1 });
});

test('CKAN: include_private shows the private dataset in range to a member only', async (t) => {
  const params = { ext_bbox: '5.8,47.2,15.1,55.1', include_private: true, 'facet.field': '["language"]' };
  for (const user of [undefined, people.outsider]) {
    const result = resultOf(await ckanGet(app.api, 'package_search', params, user ? as(user) : anonymous));
    t.deepEqual([ckanNames(result), result.count, result.facets.language], [['cov-berlin'], 1, { de: 1 }]);
  }
  const member = resultOf(await ckanGet(app.api, 'package_search', params, as(people.member)));
  t.deepEqual([ckanNames(member), member.count, member.facets.language], [['cov-berlin', 'cov-private-berlin'], 2, { de: 2 }]);
});

test('CKAN: a bad ext_bbox or an inverted period is a Validation Error naming the parameter', async (t) => {
  for (const [params, key] of [
    [{ ext_bbox: '10,0,5' }, 'ext_bbox'],
    [{ ext_bbox: '10,0,5,1' }, 'ext_bbox'],
    [{ ext_startdate: '2012', ext_enddate: '2011' }, 'ext_enddate'],
    [{ ext_startdate: 'soon' }, 'ext_startdate'],
  ] as const) {
    const res = await ckanGet(app.api, 'package_search', params);
    t.is(res.status, 409, res.text);
    t.is(res.body.error.__type, 'Validation Error');
    t.deepEqual(
      Object.keys(res.body.error).filter((k) => !k.startsWith('__') && k !== 'message'),
      [key],
    );
  }
  const negated = await ckanGet(app.api, 'package_search', { fq: '-theme:Energy' });
  t.is(negated.status, 400, negated.text);
});

// ---- MCP search_datasets ----

async function mcpSearch(args: Record<string, unknown>, user?: TestUser) {
  const client = new Client({ name: 'coverage-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/api/mcp`), {
    requestInit: user ? { headers: { Authorization: `Bearer ${user.token}` } } : {},
  });
  await client.connect(transport);
  try {
    return (await client.callTool({ name: 'search_datasets', arguments: { q: WORD, ...args } })) as CallToolResult;
  } finally {
    await client.close();
  }
}

test('MCP: search_datasets filters by bbox, period and record fields; a private dataset only for a member', async (t) => {
  const args = { bbox: [5.8, 47.2, 15.1, 55.1], temporal_start: '2011', semantic: false };
  for (const user of [undefined, people.outsider]) {
    const found = (await mcpSearch(args, user)).structuredContent as { count: number; results: Array<{ name: string }> };
    t.deepEqual([names(found), found.count], [['cov-berlin'], 1]);
  }
  const member = (await mcpSearch(args, people.member)).structuredContent as { count: number; results: Array<{ name: string }> };
  t.deepEqual([names(member), member.count], [['cov-berlin', 'cov-private-berlin'], 2]);
  const themed = (await mcpSearch({ theme: ['Transport'], language: ['fr'] })).structuredContent as { results: Array<{ name: string }> };
  t.deepEqual(names(themed), ['cov-paris-point']);
});

test('MCP: an inverted bbox or period is a tool error naming the argument', async (t) => {
  const box = await mcpSearch({ bbox: [10, 0, 5, 1] });
  t.true(box.isError);
  t.regex((box.content[0] as { text: string }).text, /bbox/);
  const period = await mcpSearch({ temporal_start: '2012', temporal_end: '2011' });
  t.true(period.isError);
  t.regex((period.content[0] as { text: string }).text, /temporal_end/);
});

// ---- the web search page ----

test('web: the search page filters by coverage, keeps it in its links, and lists the record facets', async (t) => {
  const res = await app.api.get(`/dataset?${GERMANY}&temporal_start=2011`);
  t.is(res.status, 200);
  t.true(res.text.includes('cov-berlin'));
  t.false(res.text.includes('cov-paris-point'));
  t.regex(res.text, /name="bbox" value="5\.8,47\.2,15\.1,55\.1"/);
  t.regex(res.text, /name="temporal_start" value="2011"/);
  // The facet links carry the coverage filters along.
  t.regex(res.text, /href="\/dataset\?[^"]*publisher=Berlin\+Statistics\+Office[^"]*bbox=5\.8%2C47\.2%2C15\.1%2C55\.1/);
  t.true(res.text.includes('Publishers'));
});

test('web: the private dataset in range appears for a member only', async (t) => {
  const url = `/dataset?${GERMANY}`;
  for (const auth of [anonymous, { cookie: people.outsider.cookie }]) {
    const page = await app.api.get(url, auth);
    t.false(page.text.includes('cov-private-berlin'));
    t.regex(page.text, /1–1 of 1 dataset\b/);
  }
  const member = await app.api.get(url, { cookie: people.member.cookie });
  t.true(member.text.includes('cov-private-berlin'));
  t.regex(member.text, /1–2 of 2 datasets/);
});

test('web: a bad box is a 400 page that names bbox', async (t) => {
  const res = await app.api.get('/dataset?bbox=10,0,5,1');
  t.is(res.status, 400);
  t.regex(res.text, /bbox/);
});

test('every public fixture is listed without filters (the filters above are what narrows)', async (t) => {
  t.deepEqual(names(await list('')), [...PUBLIC_NAMES].sort());
});
