import path from 'node:path';
import test from 'ava';
import { startTestApp, until, type TestApp } from '../helpers/app.ts';
import {
  datasetIri,
  loadFeedFixtures,
  python,
  rdflibParse,
  tempFile,
  type FeedFixtures,
  type ParsedRdf,
} from '../helpers/feed-fixtures.ts';
import { isProblem } from '../helpers/problem.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';

/**
 * Issue 17 §2: the DCAT-AP 3 feeds of a loaded instance, read by rdflib and checked with pySHACL against
 * the official DCAT-AP 3.0.0 shapes (../shared/data/dcat-ap/, see ../shared/data/SOURCES.md). Tools no
 * one here wrote decide whether what we serve is RDF and DCAT-AP.
 */

const SHAPES = path.join(SHARED_DATA, 'dcat-ap/dcat-ap-3.0.0-SHACL.ttl');
const FORMATS = ['ttl', 'jsonld', 'rdf'] as const;
const MEDIA_TYPES = { ttl: 'text/turtle', jsonld: 'application/ld+json', rdf: 'application/rdf+xml' } as const;

let app: TestApp;
let fx: FeedFixtures;
let publicIris: string[];
let hiddenIris: string[];

test.before(async () => {
  app = await startTestApp();
  fx = await loadFeedFixtures(app, 'rdf');
  publicIris = Object.values(fx.public)
    .map((d) => datasetIri(app, d.id))
    .sort();
  hiddenIris = [fx.private, fx.draft, fx.deleted].map((d) => datasetIri(app, d.id));
});
test.after.always(async () => app?.stop());

const get = (p: string, headers: Record<string, string> = {}) => app.api.get(p, { headers });

for (const format of FORMATS) {
  test(`/catalog.${format} is ${MEDIA_TYPES[format]} that rdflib parses, listing every public dataset and no other`, async (t) => {
    const reply = await get(`/catalog.${format}`);
    t.is(reply.status, 200, reply.text);
    t.true(reply.headers.get('content-type')!.startsWith(MEDIA_TYPES[format]));
    const parsed = await rdflibParse(format, reply.text);
    t.deepEqual(parsed.datasets, publicIris);
    for (const hidden of hiddenIris) t.false(reply.text.includes(hidden.split('/').at(-1)!), `${hidden} must not appear`);
    t.deepEqual(parsed.totalItems, [4, 4]);
  });

  test(`/dataset/{name}.${format} is ${MEDIA_TYPES[format]} that rdflib parses: the dataset and its distributions`, async (t) => {
    const reply = await get(`/dataset/${fx.public.table.name}.${format}`);
    t.is(reply.status, 200, reply.text);
    t.true(reply.headers.get('content-type')!.startsWith(MEDIA_TYPES[format]));
    const parsed = await rdflibParse(format, reply.text);
    t.deepEqual(parsed.datasets, [datasetIri(app, fx.public.table.id)]);
    t.deepEqual(parsed.identifiers, [fx.public.table.id]);
    t.deepEqual(
      parsed.distributions,
      [fx.public.table.uploadId, fx.public.table.linkId].map((r) => `${datasetIri(app, fx.public.table.id)}/resource/${r}`).sort(),
    );
  });

  test(`/dataset/{id}.${format} of a draft, a private, a deleted and an unknown dataset is a 404 problem`, async (t) => {
    for (const ref of [
      fx.draft.id,
      fx.private.id,
      fx.deleted.id,
      fx.private.name,
      '00000000-0000-4000-8000-000000000000',
      'no-such-dataset',
    ]) {
      isProblem(t, await get(`/dataset/${ref}.${format}`), 404, 'not_found');
    }
  });
}

test('the three serializations of the catalog hold the same triples', async (t) => {
  const graphs = await Promise.all(FORMATS.map(async (f) => rdflibParse(f, (await get(`/catalog.${f}?page_size=10`)).text)));
  // Blank node labels differ between parsers, and each document's paging links name its own format;
  // every other triple must be the same.
  const named = graphs.map((g) =>
    g.canonical!.filter((line) => !line.includes('_:')).map((line) => line.replace(/\/catalog\.(ttl|jsonld|rdf)\?/g, '/catalog.*?')),
  );
  t.true(named[0]!.length > 50);
  t.deepEqual(named[1], named[0]);
  t.deepEqual(named[2], named[0]);
  t.deepEqual(
    graphs.map((g) => g.triples),
    FORMATS.map(() => graphs[0]!.triples),
  );
});

test('the DCAT-AP catalog passes the official DCAT-AP 3.0.0 SHACL shapes with no violation and no warning', async (t) => {
  const reply = await get('/catalog.ttl');
  const result = await python('rdf_tools.py', ['shacl', await tempFile('catalog.ttl', reply.text), SHAPES]);
  t.is(result.violations, 0, result.report);
  t.is(result.warnings, 0, result.report);
  t.true(result.conforms, result.report);
});

test('each public dataset document passes the DCAT-AP 3.0.0 SHACL shapes too', async (t) => {
  for (const d of Object.values(fx.public)) {
    const reply = await get(`/dataset/${d.id}.ttl`);
    const result = await python('rdf_tools.py', ['shacl', await tempFile('dataset.ttl', reply.text), SHAPES]);
    t.is(result.violations, 0, `${d.name}: ${result.report}`);
  }
});

test('the shapes do find violations: a catalog without its dataset titles fails them', async (t) => {
  // The check above can fail: the same validation over the feed with every dct:title line removed.
  const reply = await get(`/dataset/${fx.public.rich.name}.ttl`);
  const broken = reply.text
    .split('\n')
    .filter((line) => !/^\s*dct:title /.test(line))
    .join('\n');
  t.not(broken, reply.text);
  const result = await python('rdf_tools.py', ['shacl', await tempFile('broken.ttl', broken), SHAPES]);
  t.true(result.violations > 0, result.report);
});

test('Hydra paging walks every page once from first to last and collects each public dataset exactly once', async (t) => {
  const seen: string[] = [];
  let url: string | undefined = `${app.url}/catalog.ttl?page_size=1`;
  let pages = 0;
  let last: string | undefined;
  while (url) {
    t.true(url.startsWith(app.url), url);
    const reply = await get(url.slice(app.url.length));
    t.is(reply.status, 200, reply.text);
    const parsed = await rdflibParse('ttl', reply.text);
    seen.push(...parsed.datasets);
    t.deepEqual(parsed.totalItems, [4, 4]);
    t.deepEqual(parsed.first, [`${app.url}/catalog.ttl?page_size=1&page=1`]);
    last = parsed.last[0];
    if (pages > 0) t.is(parsed.previous.length, 1);
    else t.deepEqual(parsed.previous, []);
    url = parsed.next[0];
    if (++pages > 10) t.fail('more pages than datasets');
  }
  t.is(pages, 4);
  t.is(last, `${app.url}/catalog.ttl?page_size=1&page=4`);
  t.deepEqual(seen.sort(), publicIris);
});

test('a page past the last is empty, and still links back to the first and the last', async (t) => {
  const parsed = await rdflibParse('ttl', (await get('/catalog.ttl?page=9&page_size=2')).text);
  t.deepEqual(parsed.datasets, []);
  t.deepEqual(parsed.last, [`${app.url}/catalog.ttl?page_size=2&page=2`]);
  t.deepEqual(parsed.next, []);
});

test('modified_since keeps the datasets modified at or after that instant', async (t) => {
  const since = encodeURIComponent(fx.public.glacier.updatedAt);
  const parsed = await rdflibParse('ttl', (await get(`/catalog.ttl?modified_since=${since}`)).text);
  t.deepEqual(parsed.datasets, [datasetIri(app, fx.public.glacier.id)]);
  t.deepEqual(parsed.totalItems, [1, 1]);
  t.deepEqual(parsed.next, []);
  const all = await rdflibParse('ttl', (await get('/catalog.ttl?modified_since=2000-01-01')).text);
  t.deepEqual(all.datasets, publicIris);
  const none = await rdflibParse('ttl', (await get('/catalog.ttl?modified_since=2999-01-01T00:00:00Z')).text);
  t.deepEqual(none.datasets, []);
});

test('q searches like the listing does and never finds a private, draft or deleted dataset', async (t) => {
  // The search index follows a dataset's creation by a background job: wait for the public match.
  let parsed!: ParsedRdf;
  await until('the glacier dataset is searchable', async () => {
    parsed = await rdflibParse('ttl', (await get('/catalog.ttl?q=glacier')).text);
    return parsed.datasets.length > 0;
  });
  t.deepEqual(parsed.datasets, [datasetIri(app, fx.public.glacier.id)]);
  t.deepEqual(parsed.titles, ['Glacier melt measurements']);
  // The paging links keep the query.
  t.deepEqual(parsed.first, [`${app.url}/catalog.ttl?q=glacier&page=1`]);
});

test('a signed-in sysadmin gets the same public catalog: private datasets are never in a feed', async (t) => {
  const reply = await app.api.get('/catalog.ttl', app.sysadmin);
  const parsed = await rdflibParse('ttl', reply.text);
  t.deepEqual(parsed.datasets, publicIris);
});

test('paging parameters out of range are a 400 problem naming the parameter', async (t) => {
  for (const query of ['page=0', 'page_size=0', 'page_size=501', 'page=x', 'modified_since=yesterday']) {
    const reply = await get(`/catalog.ttl?${query}`);
    isProblem(t, reply, 400, 'invalid_parameters');
    t.is(reply.body.errors[0].path, query.split('=')[0]);
  }
});
