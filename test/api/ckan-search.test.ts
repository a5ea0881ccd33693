import test from 'ava';
import { semanticEnv, startTestApp, vectorsCaughtUp, type TestApp } from '../helpers/app.ts';
import { ckanGet, ckanPost, resultNames, resultOf } from '../helpers/ckan.ts';
import type { Reply } from '../helpers/client.ts';

/**
 * package_search (issue 17 §1): the Solr forms CKAN clients send in q and fq become Almanac's filters,
 * plain words go to the hybrid search (the real local model here), sort, rows/start and facets; what
 * cannot be honoured is a 400 Search Query Error, never silently dropped.
 */

let app: TestApp;

interface Fixture {
  name: string;
  title: string;
  notes: string;
  org: string;
  tags: string[];
  groups: string[];
  formats: string[];
  license: string;
  private?: boolean;
}

/** Created in this order, one after the other, so their created and modified times are in this order. */
const DATASETS: Fixture[] = [
  {
    name: 'sa-water',
    title: 'River water quality',
    notes: 'Dissolved oxygen and nitrates at river stations.',
    org: 'sa',
    tags: ['water', 'river'],
    groups: ['g1'],
    formats: ['CSV'],
    license: 'cc-by',
  },
  {
    name: 'sa-air',
    title: 'Air pollution',
    notes: 'Fine particles measured by roadside sensors.',
    org: 'sa',
    tags: ['air'],
    groups: ['g2'],
    formats: ['JSON'],
    license: 'odc-odbl',
  },
  {
    name: 'sb-water',
    title: 'Lake water levels',
    notes: 'Daily lake levels in centimetres.',
    org: 'sb',
    tags: ['water'],
    groups: ['g1', 'g2'],
    formats: ['CSV', 'PDF'],
    license: 'cc-by',
  },
  {
    name: 'sb-crashes',
    title: 'Motor vehicle collisions',
    notes: 'Police-reported incidents involving automobiles on city streets, with injuries by borough.',
    org: 'sb',
    tags: ['transport'],
    groups: [],
    formats: [],
    license: 'other-closed',
  },
  {
    name: 'sb-hidden',
    title: 'Private water samples',
    notes: 'Water samples.',
    org: 'sb',
    tags: ['water'],
    groups: [],
    formats: ['CSV'],
    license: 'cc-by',
    private: true,
  },
];
const PUBLIC = DATASETS.filter((d) => !d.private).map((d) => d.name);
const modified: Record<string, string> = {};
const created: Record<string, string> = {};

test.before(async (t) => {
  app = await startTestApp(semanticEnv());
  for (const org of ['sa', 'sb']) t.is((await app.api.post('/api/v1/organizations', { name: org }, app.sysadmin)).status, 201);
  for (const cat of ['g1', 'g2']) t.is((await app.api.post('/api/v1/groups', { name: cat }, app.sysadmin)).status, 201);
  for (const d of DATASETS) {
    const reply = await app.api.post(
      '/api/v1/packages',
      {
        name: d.name,
        title: d.title,
        notes: d.notes,
        ownerOrg: d.org,
        tags: d.tags,
        groups: d.groups,
        licenseId: d.license,
        private: d.private ?? false,
        resources: d.formats.map((format, i) => ({ urlType: 'link', url: `https://example.org/${d.name}/${i}`, format })),
      },
      app.sysadmin,
    );
    t.is(reply.status, 201, reply.text);
  }
  await vectorsCaughtUp(app);
  for (const d of DATASETS) {
    const pkg = resultOf(await ckanGet(app.api, 'package_show', { id: d.name }, app.sysadmin));
    modified[d.name] = pkg.metadata_modified;
    created[d.name] = pkg.metadata_created;
  }
});
test.after.always(async () => app?.stop());

const search = (params: Record<string, string | number | string[]>) => ckanGet(app.api, 'package_search', params);
const names = async (params: Record<string, string | number | string[]>) => resultNames(await search(params)).sort();
/** A CKAN timestamp (naive UTC) as a Solr date. */
const solrDate = (ckan: string) => `${ckan}Z`;

const isSearchQueryError = (t: import('ava').ExecutionContext, reply: Reply) => {
  t.is(reply.status, 400, reply.text);
  t.is(reply.body.success, false);
  t.is(reply.body.error.__type, 'Search Query Error');
};

test('q defaults to *:* and lists every public dataset, newest change first, with count, sort, facets, search_facets', async (t) => {
  const result = resultOf(await search({}));
  t.is(result.count, PUBLIC.length);
  t.is(result.sort, 'score desc, metadata_modified desc');
  t.deepEqual(
    result.results.map((p: { name: string }) => p.name),
    [...PUBLIC].reverse(),
  );
  t.deepEqual(result.facets, {});
  t.deepEqual(result.search_facets, {});
  t.deepEqual(resultNames(await search({ q: '*:*' })), [...PUBLIC].reverse());
});

test('plain words go to the hybrid search: keyword matches, and a meaning with no shared word', async (t) => {
  t.deepEqual(await names({ q: 'water' }), ['sa-water', 'sb-water']);
  t.true((await names({ q: 'car crashes' })).includes('sb-crashes'), 'found by meaning, not by words');
  t.deepEqual(await names({ q: 'water', fq: 'organization:sb' }), ['sb-water']);
});

test('organization, tags, groups, res_format, license_id and name fields filter, in q and in fq', async (t) => {
  t.deepEqual(await names({ q: 'organization:sa' }), ['sa-air', 'sa-water']);
  t.deepEqual(await names({ fq: 'organization:sa' }), ['sa-air', 'sa-water']);
  t.deepEqual(await names({ fq: 'organization:"sb"' }), ['sb-crashes', 'sb-water']);
  t.deepEqual(await names({ fq: 'tags:water' }), ['sa-water', 'sb-water']);
  t.deepEqual(await names({ fq: 'groups:g2' }), ['sa-air', 'sb-water']);
  t.deepEqual(await names({ fq: 'res_format:CSV' }), ['sa-water', 'sb-water']);
  t.deepEqual(await names({ fq: 'license_id:cc-by' }), ['sa-water', 'sb-water']);
  t.deepEqual(await names({ fq: 'name:sa-air' }), ['sa-air']);
  t.deepEqual(await names({ q: 'tags:water', fq: '+organization:sa' }), ['sa-water']);
  t.deepEqual(await names({ fq: 'organization:sa AND res_format:JSON' }), ['sa-air']);
  t.deepEqual(await names({ fq: 'dataset_type:dataset' }), PUBLIC.slice().sort());
});

test('A OR B within a field, in parentheses or between two clauses of that field', async (t) => {
  t.deepEqual(await names({ fq: 'tags:(water OR air)' }), ['sa-air', 'sa-water', 'sb-water']);
  t.deepEqual(await names({ fq: 'tags:water OR tags:air' }), ['sa-air', 'sa-water', 'sb-water']);
  t.deepEqual(await names({ fq: 'name:("sa-air" OR sb-crashes)' }), ['sa-air', 'sb-crashes']);
});

test('a negated field (-field: or NOT) leaves out what matches it, datasets without the value included', async (t) => {
  t.deepEqual(await names({ fq: '-organization:sa' }), ['sb-crashes', 'sb-water']);
  t.deepEqual(await names({ fq: 'NOT tags:water' }), ['sa-air', 'sb-crashes']);
  t.deepEqual(await names({ fq: '-res_format:CSV' }), ['sa-air', 'sb-crashes']);
  t.deepEqual(await names({ fq: '-license_id:cc-by' }), ['sa-air', 'sb-crashes']);
  t.deepEqual(await names({ fq: '-groups:g1' }), ['sa-air', 'sb-crashes']);
  t.deepEqual(await names({ q: 'water', fq: '-organization:sa' }), ['sb-water'], 'on the hybrid search too');
});

test('fq_list ANDs its queries with q and fq', async (t) => {
  t.deepEqual(await names({ fq_list: ['organization:sb', 'tags:water'] }), ['sb-water']);
  const post = await ckanPost(app.api, 'package_search', { fq_list: ['organization:sb', 'tags:water'], fq: 'groups:g1' });
  t.deepEqual(resultNames(post), ['sb-water']);
});

test('metadata_modified ranges: [ ] inclusive, { } exclusive, * open, with or without words', async (t) => {
  const third = modified['sb-water'];
  t.deepEqual(await names({ fq: `metadata_modified:[${solrDate(third)} TO *]` }), ['sb-crashes', 'sb-water']);
  t.deepEqual(await names({ fq: `metadata_modified:{${solrDate(third)} TO *]` }), ['sb-crashes']);
  t.deepEqual(await names({ fq: `metadata_modified:[* TO ${solrDate(third)}]` }), ['sa-air', 'sa-water', 'sb-water']);
  t.deepEqual(await names({ fq: `metadata_modified:[* TO ${solrDate(third)}}` }), ['sa-air', 'sa-water']);
  t.deepEqual(await names({ fq: `metadata_modified:[${solrDate(modified['sa-air'])} TO ${solrDate(third)}]` }), ['sa-air', 'sb-water']);
  t.deepEqual(await names({ q: 'water', fq: `metadata_modified:[${solrDate(third)} TO *]` }), ['sb-water'], 'on the hybrid search too');
  t.deepEqual(await names({ fq: 'metadata_modified:[NOW-1DAY TO NOW+1DAY]' }), PUBLIC.slice().sort());
  t.deepEqual(await names({ fq: 'metadata_modified:[NOW+1DAY TO *]' }), []);
  // The harvester's form: Python's isoformat with microseconds, then Z.
  t.deepEqual(await names({ fq: `metadata_modified:[${third.slice(0, 23)}999Z TO *]` }), ['sb-crashes'], 'a finer bound keeps its meaning');
});

test('metadata_created ranges too', async (t) => {
  t.deepEqual(await names({ fq: `metadata_created:[${solrDate(created['sb-water'])} TO *]` }), ['sb-crashes', 'sb-water']);
});

test('sort: id asc, name asc, metadata_modified desc/asc, metadata_created desc; score first then the next key', async (t) => {
  const byName = PUBLIC.slice().sort();
  t.deepEqual(resultNames(await search({ sort: 'name asc' })), byName);
  t.deepEqual(resultNames(await search({ sort: 'name desc' })), byName.slice().reverse());
  const ids = resultOf(await search({ sort: 'id asc' })).results.map((p: { id: string }) => p.id);
  t.deepEqual(ids, ids.slice().sort());
  t.is(ids.length, PUBLIC.length);
  t.deepEqual(resultNames(await search({ sort: 'metadata_modified desc' })), PUBLIC.slice().reverse());
  t.deepEqual(resultNames(await search({ sort: 'metadata_modified asc' })), PUBLIC);
  t.deepEqual(resultNames(await search({ sort: 'metadata_created desc' })), PUBLIC.slice().reverse());
  t.deepEqual(resultNames(await search({ sort: 'score desc, name asc' })), byName, 'no words: score ties, the next key orders');
  t.deepEqual(resultNames(await search({ q: 'water', sort: 'name desc' })), ['sb-water', 'sa-water']);
  t.is(resultOf(await search({ sort: 'name asc' })).sort, 'name asc');
});

test('rows and start page the results; rows=0 counts only; rows above 1000 is capped, not refused', async (t) => {
  const all = resultNames(await search({ sort: 'name asc' }));
  const first = resultOf(await search({ sort: 'name asc', rows: 2 }));
  const second = resultOf(await search({ sort: 'name asc', rows: 2, start: 2 }));
  t.is(first.count, PUBLIC.length);
  t.deepEqual(
    [...first.results, ...second.results].map((p: { name: string }) => p.name),
    all,
  );
  t.deepEqual(resultNames(await search({ sort: 'name asc', rows: 2, start: 4 })), []);
  const none = resultOf(await search({ rows: 0 }));
  t.is(none.count, PUBLIC.length);
  t.deepEqual(none.results, []);
  t.is((await search({ rows: 5000 })).status, 200);
  t.is(resultOf(await search({})).results.length, PUBLIC.length, 'default rows (10) is above the fixtures');
});

test('facet.field (a JSON list) counts over the whole result; facet.limit and facet.mincount apply', async (t) => {
  const result = resultOf(await search({ 'facet.field': '["organization","tags","res_format","license_id","groups"]', rows: 1 }));
  t.deepEqual(result.facets.organization, { sa: 2, sb: 2 });
  t.deepEqual(result.facets.tags, { water: 2, river: 1, air: 1, transport: 1 });
  t.deepEqual(result.facets.res_format, { CSV: 2, JSON: 1, PDF: 1 });
  t.deepEqual(result.facets.license_id, { 'cc-by': 2, 'odc-odbl': 1, 'other-closed': 1 });
  t.deepEqual(result.facets.groups, { g1: 2, g2: 2 });
  t.deepEqual(result.search_facets.tags.items[0], { name: 'water', display_name: 'water', count: 2 });
  t.is(result.search_facets.tags.title, 'tags');
  const limited = resultOf(await ckanPost(app.api, 'package_search', { 'facet.field': ['tags'], 'facet.limit': 1 }));
  t.deepEqual(limited.facets.tags, { water: 2 });
  const min = resultOf(await search({ 'facet.field': '["tags"]', 'facet.mincount': 2 }));
  t.deepEqual(min.facets.tags, { water: 2 });
  const filtered = resultOf(await search({ fq: 'organization:sa', 'facet.field': '["tags"]' }));
  t.deepEqual(filtered.facets.tags, { air: 1, river: 1, water: 1 });
});

test('include_private brings a private dataset to a sysadmin, never without the flag', async (t) => {
  t.false(resultNames(await ckanGet(app.api, 'package_search', { fq: 'tags:water' }, app.sysadmin)).includes('sb-hidden'));
  t.true(
    resultNames(await ckanGet(app.api, 'package_search', { fq: 'tags:water', include_private: 'true' }, app.sysadmin)).includes(
      'sb-hidden',
    ),
  );
  t.false((await names({ fq: 'tags:water', include_private: 'true' })).includes('sb-hidden'), 'anonymous: never');
});

test('what cannot be honoured is a 400 Search Query Error, never ignored', async (t) => {
  const refused: Array<Record<string, string>> = [
    { q: 'maintainer:ann' },
    { fq: 'title:water' },
    { fq: 'tags:wat*' },
    { fq: 'organization:sa OR tags:water' },
    { fq: 'tags:water tags:air' },
    { fq: 'metadata_modified:[yesterday TO *]' },
    { fq: 'metadata_modified:2024-01-01T00:00:00Z' },
    { fq: '-metadata_modified:[* TO NOW]' },
    { fq: 'organization:"sa' },
    { fq: 'tags:(water air)' },
    { sort: 'metadata_modified desc, name asc' },
    { 'facet.field': '["maintainer"]' },
  ];
  for (const params of refused) {
    isSearchQueryError(t, await search(params));
  }
});

test('sort=title_string (CKAN UI’s title order) sorts by title, both ways', async (t) => {
  const byTitle = ['sa-air', 'sb-water', 'sb-crashes', 'sa-water'];
  t.deepEqual(resultNames(await search({ sort: 'title_string asc' })), byTitle);
  t.deepEqual(resultNames(await search({ sort: 'title_string desc' })), byTitle.slice().reverse());
  t.deepEqual(resultNames(await search({ fq: 'tags:water', sort: 'title_string asc' })), ['sb-water', 'sa-water']);
});

test('a repeated fq is ANDed like fq_list, in a query string and as a POST list; a repeated q is a 409 naming q', async (t) => {
  t.deepEqual(await names({ fq: ['organization:sa', 'tags:water'] }), ['sa-water']);
  t.deepEqual(await names({ fq: ['organization:sa', 'organization:sb'] }), [], 'two organizations: nothing has both');
  const posted = await ckanPost(app.api, 'package_search', { fq: ['organization:sb', 'tags:water'] });
  t.deepEqual(resultNames(posted), ['sb-water']);
  for (const reply of [await search({ q: ['water', 'air'] }), await ckanPost(app.api, 'package_search', { q: ['water', 'air'] })]) {
    t.is(reply.status, 409, reply.text);
    t.is(reply.body.error.__type, 'Validation Error');
    t.truthy(reply.body.error.q);
  }
  const sorts = await search({ sort: ['name asc', 'name desc'] });
  t.is(sorts.status, 409, sorts.text);
  t.truthy(sorts.body.error.sort);
});

test('a chunked POST body (no Content-Length) is read: its fq is honoured', async (t) => {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('fq=organization%3Asa&'));
      controller.enqueue(new TextEncoder().encode('fq=tags%3Awater'));
      controller.close();
    },
  });
  const reply = await fetch(`${app.url}/api/3/action/package_search`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body,
    duplex: 'half',
  } as RequestInit);
  const json = (await reply.json()) as { success: boolean; result: { results: Array<{ name: string }> } };
  t.is(reply.status, 200, JSON.stringify(json));
  t.deepEqual(
    json.result.results.map((p) => p.name),
    ['sa-water'],
  );
});

test('dates a database cannot hold are a 400 Search Query Error, not a 500', async (t) => {
  for (const fq of [
    'metadata_modified:[NOW-99999999999999DAYS TO *]',
    'metadata_modified:[* TO NOW+99999999999999999999WEEKS]',
    'metadata_modified:[0000-01-01T00:00:00Z TO *]',
    'metadata_created:[NOW-1000000DAYS TO NOW]',
    // Kept to the millisecond, a finer lower bound rounds up: past the last instant a database holds.
    'metadata_modified:[9999-12-31T23:59:59.9999Z TO *]',
  ]) {
    isSearchQueryError(t, await search({ fq }));
  }
  t.deepEqual(await names({ fq: 'metadata_modified:[0001-01-01T00:00:00Z TO 9999-12-31T23:59:59Z]' }), PUBLIC.slice().sort());
});

test('too long a q or fq, too many words, or too many values in one filter is a 400 Search Query Error', async (t) => {
  isSearchQueryError(t, await ckanPost(app.api, 'package_search', { q: 'water '.repeat(50_000) }));
  isSearchQueryError(t, await ckanPost(app.api, 'package_search', { fq: `-name:x${' -name:y'.repeat(2000)}` }));
  isSearchQueryError(t, await search({ q: 'water '.repeat(100) })); // words over 500 characters
  t.is((await search({ q: 'water '.repeat(80) })).status, 200, '480 characters of words are fine');
  const terms = (from: number) => `-name:(${Array.from({ length: 600 }, (_, i) => `n${from + i}`).join(' OR ')})`;
  // 1200 excluded names
  isSearchQueryError(t, await ckanPost(app.api, 'package_search', { fq_list: [terms(0), terms(1000)] }));
  t.deepEqual(resultNames(await ckanPost(app.api, 'package_search', { fq: terms(0), sort: 'name asc' })), PUBLIC.slice().sort());
});

test('an integer past what the databases count is a 409 Validation Error, not a 500; facet.limit is capped', async (t) => {
  const refused: Array<Record<string, string>> = [
    { start: '99999999999999999999' },
    { start: '1000000001' },
    { rows: '99999999999999999999' },
    { 'facet.field': '["tags"]', 'facet.limit': '99999999999999999999' },
  ];
  for (const params of refused) {
    const reply = await search(params);
    t.is(reply.status, 409, `${JSON.stringify(params)}: ${reply.text}`);
    t.is(reply.body.error.__type, 'Validation Error');
  }
  const far = resultOf(await search({ start: '1000000000' }));
  t.deepEqual(far.results, []);
  t.is(far.count, PUBLIC.length);
  const capped = resultOf(await search({ 'facet.field': '["tags"]', 'facet.limit': '1000000' }));
  t.deepEqual(capped.facets.tags, { water: 2, river: 1, air: 1, transport: 1 });
});

test('dataset_type other than dataset matches nothing', async (t) => {
  t.deepEqual(await names({ fq: 'dataset_type:harvest' }), []);
  t.deepEqual(await names({ fq: '-dataset_type:harvest' }), PUBLIC.slice().sort());
});
