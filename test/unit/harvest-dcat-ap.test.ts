import test from 'ava';
import type { ServerResponse } from 'node:http';
import { SourceInvalid, SourceUnavailable } from '../../src/domain/harvest/errors.ts';
import type { HarvestCursor, HarvestItem, HarvestRecord } from '../../src/domain/harvest/record.ts';
import { Parser } from 'n3';
import { dcatApItem, rdfSyntaxOf } from '../../src/harvest/readers/dcat-ap.ts';
import { RdfGraph } from '../../src/harvest/readers/rdf-terms.ts';
import { sourceHostOnly, sourceReader } from '../../src/harvest/readers/index.ts';
import { startFileServer } from '../helpers/file-server.ts';

/**
 * Issue 18: a DCAT-AP catalog read page by page along its Hydra links — two Turtle pages (the second
 * linked with the legacy hydra:nextPage) and a JSON-LD page — served from loopback.
 */

const READ = { since: null, timeoutMs: 10_000 };
const PREFIXES = `
@prefix dcat: <http://www.w3.org/ns/dcat#> .
@prefix dct: <http://purl.org/dc/terms/> .
@prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix vcard: <http://www.w3.org/2006/vcard/ns#> .
@prefix hydra: <http://www.w3.org/ns/hydra/core#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
`;

const PAGE_1 = `${PREFIXES}
<catalog> a dcat:Catalog ; dct:title "Remote" ;
  dcat:dataset <dataset/air>, _:water ;
  hydra:view <catalog.ttl?page=1> .
<catalog.ttl?page=1> a hydra:PartialCollectionView ; hydra:next <catalog.ttl?page=2> .

<dataset/air> a dcat:Dataset ;
  dct:identifier "air-1" ;
  dct:title "Luftqualität"@de, "Air quality"@en ;
  dct:description "Hourly readings."@en, "Stündliche Messungen."@de ;
  dcat:keyword "air"@en, "Luft"@de, "  pollution  "@en, "Air"@en ;
  dct:modified "2024-05-01T10:00:00Z"^^xsd:dateTime ;
  dct:license <https://creativecommons.org/licenses/by/4.0/> ;
  dcat:contactPoint [ a vcard:Kind ; vcard:fn "Data Desk" ; vcard:hasEmail <mailto:desk@remote.example> ] ;
  dcat:landingPage <https://remote.example/air> ;
  dct:publisher [ a foaf:Organization ; foaf:name "Remote Agency"@en ] ;
  dcat:distribution <dataset/air/csv>, <dataset/air/api> .
<dataset/air/csv> a dcat:Distribution ;
  dct:title "Readings (CSV)"@en ; dct:description "All readings" ;
  dcat:downloadURL <https://remote.example/air.csv> ; dcat:accessURL <https://remote.example/air> ;
  dct:format <http://publications.europa.eu/resource/authority/file-type/CSV> ;
  dcat:mediaType <https://www.iana.org/assignments/media-types/text/csv> ;
  dcat:byteSize "1234"^^xsd:nonNegativeInteger .
<dataset/air/api> a dcat:Distribution ;
  dcat:accessURL <https://remote.example/air/api> ;
  dct:format [ rdfs:label "Custom API" ] .

_:water a dcat:Dataset ;
  dct:identifier "water-2" ;
  dct:title "Qualité de l'eau"@fr, "Wasserqualität"@de ;
  dcat:keyword "eau"@fr, "Wasser"@de .
`;

const PAGE_2 = `${PREFIXES}
<catalog.ttl?page=2> a hydra:PagedCollection ; hydra:nextPage <catalog.jsonld> .
<http://remote.example/dataset/soil> a dcat:Dataset ;
  dct:title "Soil" ;
  dcat:distribution [ dcat:accessURL <https://remote.example/soil> ; dct:license <http://www.opendefinition.org/licenses/odc-odbl> ] .
_:anonymous a dcat:Dataset ; dct:title "Nameless" .
<http://remote.example/dataset/untitled> a dcat:Dataset ; dct:identifier "untitled-3" .
<http://remote.example/dataset/secret> a dcat:Dataset ; dct:title "Secret" ;
  dct:accessRights <http://publications.europa.eu/resource/authority/access-right/NON_PUBLIC> .
`;

const PAGE_3 = {
  '@context': {
    dcat: 'http://www.w3.org/ns/dcat#',
    dct: 'http://purl.org/dc/terms/',
    vcard: 'http://www.w3.org/2006/vcard/ns#',
  },
  '@graph': [
    {
      '@id': 'http://remote.example/dataset/noise',
      '@type': 'dcat:Dataset',
      'dct:identifier': 'noise-4',
      'dct:title': [{ '@value': 'Noise' }, { '@value': 'Lärm', '@language': 'de' }],
      'dcat:keyword': ['noise', 'city'],
      'dct:license': { '@id': 'http://publications.europa.eu/resource/authority/licence/CC0' },
      'dct:accessRights': { '@id': 'http://publications.europa.eu/resource/authority/access-right/RESTRICTED' },
      'dcat:contactPoint': { 'vcard:fn': 'Noise Office', 'vcard:hasEmail': 'noise@remote.example' },
      'dcat:distribution': {
        'dcat:downloadURL': { '@id': 'https://remote.example/noise.json' },
        'dct:format': { '@id': 'http://publications.europa.eu/resource/authority/file-type/JSON' },
        'dcat:mediaType': 'application/json',
      },
    },
  ],
};

const RDF_XML = `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dcat="http://www.w3.org/ns/dcat#"
    xmlns:dct="http://purl.org/dc/terms/">
  <dcat:Dataset rdf:about="http://remote.example/x">
    <dct:title xml:lang="fr">Qualité de l'air</dct:title>
    <dct:title>Air quality &amp; weather</dct:title>
    <dcat:keyword>air</dcat:keyword>
    <dcat:distribution>
      <dcat:Distribution>
        <dcat:downloadURL rdf:resource="https://remote.example/air.csv"/>
        <dct:title>Readings</dct:title>
      </dcat:Distribution>
    </dcat:distribution>
  </dcat:Dataset>
</rdf:RDF>`;

const send = (res: ServerResponse, type: string | null, body: string): void =>
  void res.writeHead(200, type ? { 'content-type': type } : {}).end(body);

let server: Awaited<ReturnType<typeof startFileServer>>;
test.before(async () => {
  server = await startFileServer({
    '/catalog.ttl': (req, res) => send(res, 'text/turtle; charset=utf-8', req.url?.includes('page=2') ? PAGE_2 : PAGE_1),
    '/catalog.jsonld': (_req, res) => send(res, 'application/ld+json', JSON.stringify(PAGE_3)),
    '/plain': (_req, res) => send(res, 'text/plain', PAGE_2.replace(/hydra:nextPage <catalog.jsonld>/, 'a hydra:PagedCollection')),
    '/broken.ttl': (_req, res) => send(res, 'text/turtle', `${PREFIXES}<a> dct:title "unterminated .`),
    '/broken.jsonld': (_req, res) => send(res, 'application/ld+json', '{"@context": 5}'),
    '/down.ttl': (_req, res) => void res.writeHead(503).end(),
    '/catalog.rdf': (_req, res) => send(res, 'application/rdf+xml', RDF_XML),
    '/broken.rdf': (_req, res) => send(res, 'application/rdf+xml', RDF_XML.replace('</dcat:Dataset>', '')),
    '/loop.ttl': (_req, res) => send(res, 'text/turtle', `${PREFIXES}<loop.ttl> hydra:next <loop.ttl> .`),
    // The same loopback server under another host name: private, and not the source's host.
    '/elsewhere.ttl': (req, res) =>
      send(res, 'text/turtle', `${PREFIXES}<elsewhere.ttl> hydra:next <http://localhost:${req.socket.localPort}/catalog.ttl> .`),
    '/moved.ttl': (req, res) => void res.writeHead(302, { location: `http://localhost:${req.socket.localPort}/catalog.ttl` }).end(),
  });
});
test.after.always(() => server?.close());

async function readAll(url: string) {
  const reader = sourceReader('dcat-ap', url, { allowPrivateNetworks: sourceHostOnly(url) });
  const pages: HarvestItem[][] = [];
  const cursors: Array<HarvestCursor | null> = [];
  let cursor: HarvestCursor | null = null;
  do {
    cursors.push(cursor);
    const page = await reader.readPage(cursor, READ);
    pages.push(page.items);
    cursor = page.next;
  } while (cursor && pages.length < 10);
  return Object.assign(pages, { cursors });
}
const records = (items: HarvestItem[]) => items.flatMap((i) => (i.kind === 'record' ? [i.record] : []));
/** Almanac's own fields of a record, without its metadata record and raw extras (test/interop/dcat-ap-roundtrip.test.ts covers those). */
const coreOf = (record: HarvestRecord | undefined) => {
  const { metadata: _m, extras: _e, resources, ...core } = record!;
  return { ...core, resources: resources.map(({ metadata: _rm, customExtras: _rx, ...r }) => r) };
};

test('a DCAT-AP catalog is read along hydra:next and hydra:nextPage: two Turtle pages, then a JSON-LD one', async (t) => {
  const pages = await readAll(`${server.url}/catalog.ttl`);
  t.is(pages.length, 3);
  t.deepEqual(
    pages.map((items) => items.map((i) => (i.kind === 'record' ? i.record.remoteId : `refused ${i.remoteId}`))),
    [
      ['air-1', 'water-2'],
      ['http://remote.example/dataset/soil', 'refused dataset[1]', 'untitled-3', 'refused http://remote.example/dataset/secret'],
      ['noise-4'],
    ],
  );
  // The relative next links, resolved against each page's URL, are the next cursors.
  t.deepEqual(
    pages.cursors.map((c) => c?.url ?? null),
    [null, `${server.url}/catalog.ttl?page=2`, `${server.url}/catalog.jsonld`],
  );
  t.deepEqual(
    pages[1]!.flatMap((i) => (i.kind === 'refused' ? [i.reason] : [])),
    ['a dataset with neither a dct:identifier nor an IRI', 'non-public record (dct:accessRights NON_PUBLIC)'],
  );
  // Only the non-public one is withdrawn: a dataset harvested from it before is made private.
  t.deepEqual(
    pages[1]!.flatMap((i) => (i.kind === 'refused' && i.withdrawn ? [i.remoteId] : [])),
    ['http://remote.example/dataset/secret'],
  );
});

test('a dcat:Dataset maps onto the record, in English when no untagged text exists', async (t) => {
  const [page1, page2, page3] = await readAll(`${server.url}/catalog.ttl`);
  const [air, water] = records(page1!);
  t.deepEqual(coreOf(air), {
    remoteId: 'air-1',
    remoteUrl: `${server.url}/dataset/air`,
    name: null,
    title: 'Air quality',
    notes: 'Hourly readings.',
    tags: ['air', 'pollution'],
    licenseId: 'cc-by-4.0',
    organization: { name: 'remote-agency', title: 'Remote Agency', description: null },
    groups: [],
    private: false,
    author: null,
    authorEmail: null,
    maintainer: 'Data Desk',
    maintainerEmail: 'desk@remote.example',
    version: null,
    url: 'https://remote.example/air',
    modified: '2024-05-01T10:00:00.000Z',
    resources: [
      {
        url: 'https://remote.example/air.csv',
        name: 'Readings (CSV)',
        description: 'All readings',
        format: 'CSV',
        mimetype: 'text/csv',
        size: 1234,
      },
      { url: 'https://remote.example/air/api', name: null, description: null, format: 'Custom API', mimetype: null, size: null },
    ],
  } satisfies HarvestRecord);
  // No untagged or English title: the first language met, and keywords in that same language only.
  t.like(water, { remoteId: 'water-2', remoteUrl: null, title: "Qualité de l'eau", tags: ['eau'], licenseId: 'notspecified' });
  // No dct:identifier: the IRI is the id; the license is taken from the distribution.
  t.like(records(page2!)[0], {
    remoteId: 'http://remote.example/dataset/soil',
    remoteUrl: 'http://remote.example/dataset/soil',
    licenseId: 'odc-odbl',
  });
  // JSON-LD: untagged title preferred; EU licence authority CC0; RESTRICTED access kept private; a literal email.
  t.like(records(page3!)[0], {
    title: 'Noise',
    tags: ['noise', 'city'],
    licenseId: 'cc-zero',
    private: true,
    maintainer: 'Noise Office',
    maintainerEmail: 'noise@remote.example',
  });
  t.deepEqual(coreOf(records(page3!)[0]).resources, [
    { url: 'https://remote.example/noise.json', name: null, description: null, format: 'JSON', mimetype: 'application/json', size: null },
  ]);
});

test('an RDF/XML catalog is read too: title in the untagged language, escaped text, keywords and distributions', async (t) => {
  const [items] = await readAll(`${server.url}/catalog.rdf`);
  const [record] = records(items!);
  t.like(record, { remoteId: 'http://remote.example/x', title: 'Air quality & weather', tags: ['air'] });
  t.deepEqual(
    record!.resources.map((r) => [r.url, r.name]),
    [['https://remote.example/air.csv', 'Readings']],
  );
});

test('private addresses are for the source’s own host: a next page or a redirect to another private host is SourceInvalid', async (t) => {
  const next = await t.throwsAsync(readAll(`${server.url}/elsewhere.ttl`), { instanceOf: SourceInvalid });
  t.regex(next.message, /localhost.*cannot be harvested/);
  const moved = await t.throwsAsync(readAll(`${server.url}/moved.ttl`), { instanceOf: SourceInvalid });
  t.regex(moved.message, /cannot be harvested/);
});

test('an unparseable page is SourceInvalid, naming the syntax and the URL', async (t) => {
  const read = (path: string) => sourceReader('dcat-ap', `${server.url}${path}`, { allowPrivateNetworks: true }).readPage(null, READ);
  const turtle = await t.throwsAsync(read('/broken.ttl'), { instanceOf: SourceInvalid });
  t.regex(turtle.message, /broken\.ttl is not valid Turtle/);
  t.is(turtle.name, 'SourceInvalid');
  t.regex((await t.throwsAsync(read('/broken.jsonld'), { instanceOf: SourceInvalid })).message, /is not valid JSON-LD/);
  t.regex((await t.throwsAsync(read('/broken.rdf'), { instanceOf: SourceInvalid })).message, /broken\.rdf is not valid RDF\/XML/);
  t.regex((await t.throwsAsync(read('/loop.ttl'), { instanceOf: SourceInvalid })).message, /names itself as the next page/);
  t.regex((await t.throwsAsync(read('/nowhere.ttl'), { instanceOf: SourceInvalid })).message, /HTTP 404/);
});

test('a catalog answering 503 is SourceUnavailable (retried by the workflow)', async (t) => {
  const reader = sourceReader('dcat-ap', `${server.url}/down.ttl`, { allowPrivateNetworks: true });
  const err = await t.throwsAsync(reader.readPage(null, READ), { instanceOf: SourceUnavailable });
  t.regex(err.message, /down\.ttl answered HTTP 503/);
  t.is(err.name, 'SourceUnavailable');
});

test('the syntax comes from the Content-Type, else the extension, else the first characters', async (t) => {
  const at = (url: string, contentType: string | null = null) => ({ url, contentType });
  t.is(rdfSyntaxOf(at('http://x/c', 'text/turtle'), '{'), 'turtle');
  t.is(rdfSyntaxOf(at('http://x/c.jsonld', 'text/plain'), '@prefix'), 'json-ld');
  t.is(rdfSyntaxOf(at('http://x/c.rdf'), ''), 'rdf-xml');
  t.is(rdfSyntaxOf(at('http://x/c'), '  <?xml version="1.0"?>'), 'rdf-xml');
  t.is(rdfSyntaxOf(at('http://x/c'), '<rdf:RDF xmlns:rdf="…">'), 'rdf-xml');
  t.is(rdfSyntaxOf(at('http://x/c'), '<http://x/a> <http://x/b> "c" .'), 'turtle');
  t.is(rdfSyntaxOf(at('http://x/c'), '{"@context": {}}'), 'json-ld');
  // A Turtle page served as text/plain without an extension is sniffed and read.
  const page = await sourceReader('dcat-ap', `${server.url}/plain`, { allowPrivateNetworks: true }).readPage(null, READ);
  t.is(records(page.items)[0]?.title, 'Soil');
  t.is(page.next, null);
});

test('a distribution’s documentation (foaf:page) and other pages (rdfs:seeAlso) map apart and need no raw triples', (t) => {
  const graph = new RdfGraph(
    new Parser({ baseIRI: 'https://remote.example/' }).parse(`${PREFIXES}
<d> a dcat:Dataset ; dct:title "D" ; dct:description "About D" ; dcat:distribution <d/csv> .
<d/csv> a dcat:Distribution ; dcat:accessURL <https://remote.example/d.csv> ;
  foaf:page <https://remote.example/guide> ; rdfs:seeAlso <https://remote.example/blog> .`),
  );
  const item = dcatApItem(graph, { termType: 'NamedNode', value: 'https://remote.example/d' }, 0);
  if (item.kind !== 'record') return t.fail(item.reason);
  const [resource] = item.record.resources;
  t.like(resource?.metadata, { documentation: ['https://remote.example/guide'], page: ['https://remote.example/blog'] });
  // Both come back out of the feed's writers as written: nothing kept raw for them (only the untitled marker).
  t.deepEqual(
    (resource?.customExtras ?? []).map((e) => e.key),
    ['http://purl.org/dc/terms/title'],
  );
});

test('blank nodes that loop and fan out cost a bounded walk, and what they said is kept as written', (t) => {
  // Ten self-loops under dct:spatial: a walk without a cycle check or a budget makes 10^10 steps.
  const loops = Array.from({ length: 10 }, (_, i) => `<https://remote.example/p${i}> _:a`).join(' ; ');
  const graph = new RdfGraph(
    new Parser({ baseIRI: 'https://remote.example/' }).parse(`${PREFIXES}
<d> a dcat:Dataset ; dct:title "D" ; dct:description "About D" ; dct:spatial _:a .
_:a a dct:Location ; ${loops} .`),
  );
  const item = dcatApItem(graph, { termType: 'NamedNode', value: 'https://remote.example/d' }, 0);
  if (item.kind !== 'record') return t.fail(item.reason);
  t.true((item.record.extras ?? []).some((e) => e.key === 'http://purl.org/dc/terms/spatial'));
});
