import test from 'ava';
import { DATASET_RECORD, recordKeys } from '../../src/domain/metadata/dataset-record.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { datasetIri, loadFeedFixtures, READINGS_API, type FeedFixtures } from '../helpers/feed-fixtures.ts';
import { schemaOrgScript } from '../../src/feeds/schema-org.ts';
import { isProblem } from '../helpers/problem.ts';
import { RECORD } from '../helpers/metadata-record.ts';

/**
 * Issue 17 §2 over HTTP: DCAT-US `data.json` for data.gov-style harvesters, schema.org JSON-LD from the
 * dataset route by content negotiation (the JSON answer unchanged), content negotiation on /catalog, and
 * the 404s of every per-dataset feed. Fixtures: test/helpers/feed-fixtures.ts.
 */

let app: TestApp;
let fx: FeedFixtures;

test.before(async () => {
  app = await startTestApp();
  fx = await loadFeedFixtures(app, 'feeds');
});
test.after.always(async () => app?.stop());

const PACKAGES = '/api/v1/packages';
const accept = (type: string) => ({ headers: { Accept: type } });

test('data.json is a DCAT-US 1.1 catalog: conformsTo, @context, @type and one entry per public dataset', async (t) => {
  const reply = await app.api.get('/data.json');
  t.is(reply.status, 200, reply.text);
  t.true(reply.headers.get('content-type')!.startsWith('application/json'));
  t.like(reply.body, {
    conformsTo: 'https://project-open-data.cio.gov/v1.1/schema',
    describedBy: 'https://project-open-data.cio.gov/v1.1/schema/catalog.json',
    '@context': 'https://project-open-data.cio.gov/v1.1/schema/catalog.jsonld',
    '@type': 'dcat:Catalog',
  });
  const identifiers = reply.body.dataset.map((d: { identifier: string }) => d.identifier).sort();
  t.deepEqual(
    identifiers,
    Object.values(fx.public)
      .map((d) => datasetIri(app, d.id))
      .sort(),
  );
  for (const hidden of [fx.private, fx.draft, fx.deleted]) t.false(reply.text.includes(hidden.id), `${hidden.name} must not appear`);
});

test('a data.json dataset carries the fields DCAT-US requires of a public dataset', async (t) => {
  const { body } = await app.api.get('/data.json');
  const byId = (id: string) => body.dataset.find((d: { identifier: string }) => d.identifier === datasetIri(app, id));
  const rich = byId(fx.public.rich.id);
  t.deepEqual(rich, {
    '@type': 'dcat:Dataset',
    title: 'Air quality "PM2.5" readings <hourly> & daily',
    description: 'Readings from every station.\nLine two, with émojis 🌍 and a </script> tag.',
    keyword: ['air', 'hourly readings', 'pollution'],
    modified: rich.modified,
    issued: rich.issued,
    publisher: { '@type': 'org:Organization', name: fx.org.title },
    contactPoint: { '@type': 'vcard:Contact', fn: 'Max Maintainer', hasEmail: 'mailto:max@example.org' },
    identifier: datasetIri(app, fx.public.rich.id),
    accessLevel: 'public',
    license: 'https://creativecommons.org/licenses/by/4.0/',
    landingPage: 'https://example.org/air?lang=en&view=full',
    distribution: [
      {
        '@type': 'dcat:Distribution',
        title: 'Readings (JSON)',
        description: 'All readings',
        accessURL: 'https://example.org/air/readings.json',
        mediaType: 'application/json',
        format: 'JSON',
      },
      { '@type': 'dcat:Distribution', title: 'Readings API', accessURL: READINGS_API, format: 'CUSTOM API' },
    ],
  });
  t.regex(rich.modified, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

  // An upload is a download, with its media type; a dataset without tags is filed under its publisher.
  const table = byId(fx.public.table.id);
  t.like(table.distribution[0], {
    downloadURL: `${app.url}/api/v1/resources/${fx.public.table.uploadId}/download`,
    mediaType: 'text/csv',
    format: 'CSV',
  });
  t.is(table.license, 'http://www.opendefinition.org/licenses/odc-odbl');
  const bare = byId(fx.public.bare.id);
  t.deepEqual(bare.keyword, [fx.org.title]);
  t.is(bare.description, bare.title);
  t.is(bare.license, undefined, 'other-open has no license document');
  t.deepEqual(bare.distribution, []);
});

test('data.json pages through the whole listing: more datasets than one listing page are all there', async (t) => {
  // 100 is the page the feed reads the listing with; a catalog above it must come whole.
  const before = (await app.api.get('/data.json')).body.dataset.length;
  const made = await Promise.all(
    Array.from({ length: 101 }, (_, i) =>
      app.api.post(PACKAGES, { name: `feeds-bulk-${i}`, ownerOrg: fx.org.name, licenseId: 'cc-zero' }, app.sysadmin),
    ),
  );
  t.true(made.every((r) => r.status === 201));
  const after = (await app.api.get('/data.json')).body.dataset as Array<{ identifier: string }>;
  t.is(after.length, before + 101);
  t.is(new Set(after.map((d) => d.identifier)).size, after.length, 'each dataset once');
  await Promise.all(made.map((r) => app.api.delete(`${PACKAGES}/${r.body.id}`, app.sysadmin)));
});

test('GET /packages/{name} with Accept: application/ld+json is a schema.org Dataset', async (t) => {
  const reply = await app.api.get(`${PACKAGES}/${fx.public.table.name}`, accept('application/ld+json'));
  t.is(reply.status, 200, reply.text);
  t.is(reply.headers.get('content-type'), 'application/ld+json');
  t.regex(reply.headers.get('vary') ?? '', /Accept/);
  const record = (await app.api.get(`${PACKAGES}/${fx.public.table.name}`)).body;
  t.like(reply.body, {
    '@context': 'https://schema.org/',
    '@type': 'Dataset',
    '@id': datasetIri(app, fx.public.table.id),
    name: 'Station readings table',
    description: 'A queryable table of station readings.',
    identifier: fx.public.table.id,
    keywords: ['air', 'table'],
    license: 'http://www.opendefinition.org/licenses/odc-odbl',
    creator: { '@type': 'Organization', name: fx.org.title },
    publisher: { '@type': 'Organization', name: fx.org.title },
    dateCreated: record.createdAt,
    dateModified: record.updatedAt,
    datePublished: record.publishedAt,
  });
  t.deepEqual(reply.body.distribution, [
    {
      '@type': 'DataDownload',
      name: 'readings.csv',
      contentUrl: `${app.url}/api/v1/resources/${fx.public.table.uploadId}/download`,
      encodingFormat: 'text/csv',
      contentSize: `${record.resources[0].size} B`,
      sha256: record.resources[0].hash,
    },
    {
      '@type': 'DataDownload',
      name: 'About the stations',
      contentUrl: 'https://example.org/station/about.html',
      encodingFormat: 'text/html',
    },
  ]);
});

test('the schema.org answer names the author as creator and the maintainer, and works by id too', async (t) => {
  const reply = await app.api.get(`${PACKAGES}/${fx.public.rich.id}`, accept('application/ld+json'));
  t.is(reply.status, 200, reply.text);
  t.deepEqual(reply.body.creator, { '@type': 'Person', name: 'Ada Author', email: 'ada@example.org' });
  t.deepEqual(reply.body.maintainer, { '@type': 'Person', name: 'Max Maintainer', email: 'max@example.org' });
  t.is(reply.body.version, '2.1');
  t.is(reply.body.license, 'https://creativecommons.org/licenses/by/4.0/');
});

test('GET /packages/{name} without ld+json in Accept is the plain JSON record, unchanged', async (t) => {
  const variants: Array<Record<string, string>> = [
    {},
    { Accept: 'application/json' },
    { Accept: '*/*' },
    { Accept: 'application/json, application/ld+json;q=0.5' },
  ];
  const texts: string[] = [];
  for (const headers of variants) {
    const reply = await app.api.get(`${PACKAGES}/${fx.public.table.name}`, { headers });
    t.is(reply.status, 200, reply.text);
    t.is(reply.headers.get('content-type'), 'application/json; charset=utf-8');
    t.is(reply.body.id, fx.public.table.id);
    t.is(reply.body['@context'], undefined);
    t.deepEqual(
      Object.keys(reply.body).sort(),
      [
        ...recordKeys(DATASET_RECORD),
        'customFields',
        'extras',
        'author',
        'authorEmail',
        'createdAt',
        'creatorUserId',
        'groups',
        'harvest',
        'id',
        'licenseId',
        'maintainer',
        'maintainerEmail',
        'name',
        'notes',
        'organization',
        'ownerOrg',
        'private',
        'publishedAt',
        'resources',
        'state',
        'tags',
        'title',
        'updatedAt',
        'url',
        'version',
      ].sort(),
    );
    texts.push(reply.text);
  }
  // Byte for byte the same answer, whatever the Accept header that does not ask for JSON-LD.
  t.is(new Set(texts).size, 1);
});

test('schema.org by negotiation keeps the dataset route’s visibility: a private dataset is 404 to anonymous', async (t) => {
  isProblem(t, await app.api.get(`${PACKAGES}/${fx.private.name}`, accept('application/ld+json')), 404, 'not_found');
  const own = await app.api.get(`${PACKAGES}/${fx.private.name}`, { ...app.sysadmin, ...accept('application/ld+json') });
  t.is(own.status, 200, own.text);
  t.is(own.body['@type'], 'Dataset');
});

test('OpenAPI documents the application/ld+json answer of GET /packages/{nameOrId} beside the JSON one', async (t) => {
  const { body } = await app.api.get('/api/v1/openapi.json');
  const content = body.paths['/api/v1/packages/{nameOrId}'].get.responses['200'].content;
  t.deepEqual(Object.keys(content).sort(), ['application/json', 'application/ld+json']);
  t.truthy(content['application/ld+json'].schema);
  // Only this route has the alternate.
  t.deepEqual(Object.keys(body.paths['/api/v1/packages'].get.responses['200'].content), ['application/json']);
});

test('/catalog negotiates Turtle, JSON-LD and RDF/XML from Accept, Turtle by default, and varies on Accept', async (t) => {
  const cases: Array<[string | undefined, string]> = [
    [undefined, 'text/turtle'],
    ['*/*', 'text/turtle'],
    ['text/turtle', 'text/turtle'],
    ['application/ld+json', 'application/ld+json'],
    ['application/json', 'application/ld+json'],
    ['application/rdf+xml', 'application/rdf+xml'],
    ['text/html;q=0.9, application/rdf+xml;q=0.5, application/ld+json;q=0.8', 'application/ld+json'],
    ['text/html', 'text/turtle'],
  ];
  for (const [type, expected] of cases) {
    const reply = await app.api.get('/catalog', type ? accept(type) : {});
    t.is(reply.status, 200, reply.text);
    t.true(reply.headers.get('content-type')!.startsWith(expected), `Accept ${type} → ${reply.headers.get('content-type')}`);
    t.regex(reply.headers.get('vary') ?? '', /Accept/);
  }
  t.regex((await app.api.get('/catalog', accept('application/rdf+xml'))).text, /^<\?xml version="1.0" encoding="utf-8"\?>\n<rdf:RDF/);
  t.like((await app.api.get('/catalog', accept('application/ld+json'))).body, { '@context': { dcat: 'http://www.w3.org/ns/dcat#' } });
});

test('the catalog by file name is Turtle, JSON-LD or RDF/XML whatever Accept says, and a public dataset has its Croissant', async (t) => {
  for (const [format, expected] of [
    ['ttl', 'text/turtle'],
    ['jsonld', 'application/ld+json'],
    ['rdf', 'application/rdf+xml'],
  ] as const) {
    const reply = await app.api.get(`/catalog.${format}`, accept('text/html'));
    t.is(reply.status, 200, reply.text);
    t.true(reply.headers.get('content-type')!.startsWith(expected), `/catalog.${format} → ${reply.headers.get('content-type')}`);
    t.true(reply.text.includes(fx.public.rich.id), `/catalog.${format} lists the public dataset`);
  }
  const croissant = await app.api.get(`/dataset/${fx.public.rich.name}/croissant.jsonld`);
  t.is(croissant.status, 200, croissant.text);
  t.like(croissant.body, { '@type': 'sc:Dataset' });
});

test('every per-dataset feed is a 404 problem for a draft, a private, a deleted and an unknown dataset', async (t) => {
  const refs = [fx.draft.id, fx.draft.name, fx.private.id, fx.private.name, fx.deleted.id, fx.deleted.name, 'no-such-dataset'];
  for (const ref of refs) {
    for (const path of [`/dataset/${ref}.ttl`, `/dataset/${ref}.jsonld`, `/dataset/${ref}.rdf`, `/dataset/${ref}/croissant.jsonld`]) {
      isProblem(t, await app.api.get(path), 404, 'not_found');
      // Not even for the sysadmin: feeds are public documents.
      isProblem(t, await app.api.get(path, app.sysadmin), 404, 'not_found');
    }
  }
  // Not a feed: left to the web pages, where no dataset has that name.
  t.is((await app.api.get(`/dataset/${fx.public.rich.name}.xml`)).status, 404);
});

test('a dataset’s IRI answers its DCAT-AP document to a client asking for RDF, and is left alone otherwise', async (t) => {
  const iri = new URL(datasetIri(app, fx.public.rich.id)).pathname;
  for (const [type, expected] of [
    ['text/turtle', 'text/turtle'],
    ['application/ld+json', 'application/ld+json'],
    ['application/rdf+xml', 'application/rdf+xml'],
    ['text/html;q=0.5, text/turtle', 'text/turtle'],
  ] as const) {
    const reply = await app.api.get(iri, accept(type));
    t.is(reply.status, 200, reply.text);
    t.true(reply.headers.get('content-type')!.startsWith(expected));
    t.true(reply.text.includes(fx.public.rich.id));
  }
  // A browser, or a client without a preference for RDF, gets the dataset's web page (src/web).
  const others: Array<Record<string, string>> = [{}, { Accept: 'text/html' }, { Accept: '*/*' }, { Accept: 'application/json' }];
  for (const headers of others) {
    const reply = await app.api.get(iri, { headers });
    t.is(reply.status, 200);
    t.regex(reply.headers.get('content-type')!, /^text\/html/);
    t.true(reply.text.includes(`<link rel="alternate" type="application/json" href="/api/v1/packages/${fx.public.rich.name}"/>`));
  }
  isProblem(t, await app.api.get(`/dataset/${fx.private.id}`, accept('text/turtle')), 404, 'not_found');
});

test('schemaOrgScript gives a web page the same JSON-LD, with no way for dataset text to close the script element', async (t) => {
  const record = (await app.api.get(`${PACKAGES}/${fx.public.rich.name}`)).body;
  t.true(record.notes.includes('</script>'), 'the fixture carries the attack');
  const html = schemaOrgScript({ publicUrl: app.url, siteName: 'Almanac' }, record);
  const inner = html.replace(/^<script type="application\/ld\+json">/, '').replace(/<\/script>$/, '');
  t.false(inner.includes('</script'), html);
  t.false(inner.includes('<'));
  const served = (await app.api.get(`${PACKAGES}/${fx.public.rich.name}`, accept('application/ld+json'))).body;
  t.deepEqual(JSON.parse(inner), served);
});

test('a link whose query holds { } | ^ is written as a valid IRI in every RDF form: those characters percent-encoded', async (t) => {
  const encoded = 'https://example.org/air/api?filter=%7B%22station%22:1%7D%7Clatest%5E2';
  for (const format of ['ttl', 'rdf', 'jsonld']) {
    const reply = await app.api.get(`/dataset/${fx.public.rich.name}.${format}`);
    t.is(reply.status, 200, reply.text);
    t.true(reply.text.includes(encoded), `${format}: the link is not encoded as an IRI`);
    t.false(reply.text.includes('{%22station'), `${format}: a raw { is left in an IRI`);
  }
});

// Serial, so it runs before the tests above and deletes its dataset before they list the catalog.
test.serial('schema.org and Croissant pick up the record: coverage, publisher, languages, themes; license as before', async (t) => {
  const made = await app.api.post(
    PACKAGES,
    { name: 'feeds-record', title: 'With a record', ownerOrg: fx.org.name, licenseId: 'cc-by-4.0', tags: ['water'], ...RECORD },
    app.sysadmin,
  );
  t.is(made.status, 201, made.text);
  try {
    const schemaOrg = (await app.api.get(`${PACKAGES}/feeds-record`, accept('application/ld+json'))).body;
    const croissant = (await app.api.get('/dataset/feeds-record/croissant.jsonld')).body;
    t.deepEqual(schemaOrg.temporalCoverage, ['2010/2019-12-31', '2021-01-01T00:00:00Z/..']);
    t.deepEqual(schemaOrg.spatialCoverage, [
      {
        '@type': 'Place',
        '@id': 'https://sws.geonames.org/2862926/',
        name: 'Lower Saxony',
        geo: { '@type': 'GeoShape', box: '51.29 6.65 53.89 11.6' },
      },
      { '@type': 'Place', name: 'Test <polygon> & "area"', geo: { '@type': 'GeoShape', polygon: '52 8 52 9 53 9 53 8 52 8' } },
    ]);
    t.deepEqual(schemaOrg.publisher, {
      '@type': 'Organization',
      name: 'Office of Statistics',
      parentOrganization: { '@type': 'Organization', '@id': 'https://example.gov/doc', name: 'Department of Commerce' },
    });
    t.deepEqual(schemaOrg.inLanguage, ['en-US', 'deu']);
    t.deepEqual(schemaOrg.keywords, ['water', 'Energy', 'Environment']);
    t.is(schemaOrg.license, 'https://creativecommons.org/licenses/by/4.0/');
    t.deepEqual(
      schemaOrg.creator,
      { '@type': 'Organization', '@id': schemaOrg.creator['@id'], name: fx.org.title },
      'still the organization',
    );

    t.deepEqual(croissant.temporalCoverage, schemaOrg.temporalCoverage);
    t.deepEqual(croissant.spatialCoverage[0], {
      ...schemaOrg.spatialCoverage[0],
      '@type': 'sc:Place',
      geo: { '@type': 'sc:GeoShape', box: '51.29 6.65 53.89 11.6' },
    });
    t.like(croissant.publisher, {
      '@type': 'sc:Organization',
      name: 'Office of Statistics',
      parentOrganization: { '@type': 'sc:Organization' },
    });
    t.deepEqual(
      [croissant.inLanguage, croissant.keywords, croissant.license],
      [schemaOrg.inLanguage, schemaOrg.keywords, schemaOrg.license],
    );
  } finally {
    await app.api.delete(`${PACKAGES}/${made.body.id}`, app.sysadmin);
  }
});

test('without a record, schema.org names the owning organization as publisher and says no coverage', async (t) => {
  const body = (await app.api.get(`${PACKAGES}/${fx.public.table.name}`, accept('application/ld+json'))).body;
  t.like(body.publisher, { '@type': 'Organization', name: fx.org.title });
  t.false('temporalCoverage' in body || 'spatialCoverage' in body || 'inLanguage' in body);
});
