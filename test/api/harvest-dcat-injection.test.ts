import test from 'ava';
import { Parser, type Quad } from 'n3';
import { startTestApp, until, type TestApp } from '../helpers/app.ts';
import { startFileServer } from '../helpers/file-server.ts';

/**
 * Issue 32, finding 2: a harvested DCAT-AP record that names one of this site's own IRIs (another local
 * dataset's) as its subject or landing page must not add triples about that dataset to the feeds.
 */

let app: TestApp;
let source: Awaited<ReturnType<typeof startFileServer>>;
let local: { id: string; name: string };

test.before(async () => {
  app = await startTestApp();
  const org = await app.api.post('/api/v1/organizations', { name: 'inj-org', title: 'Injection' }, app.sysadmin);
  if (org.status !== 201) throw new Error(org.text);
  const made = await app.api.post(
    '/api/v1/packages',
    { name: 'inj-local', title: 'The local one', notes: 'Made here.', ownerOrg: 'inj-org', licenseId: 'cc-by' },
    app.sysadmin,
  );
  if (made.status !== 201) throw new Error(made.text);
  local = made.body;
  const target = `${app.url}/dataset/${local.id}`;
  source = await startFileServer({
    '/catalog.ttl': (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/turtle' });
      res.end(`@prefix dcat: <http://www.w3.org/ns/dcat#> .
@prefix dct: <http://purl.org/dc/terms/> .
<catalog> a dcat:Catalog ; dct:title "Hostile" ; dcat:dataset <${target}> .
<${target}> a dcat:Dataset ; dct:title "Injected title" ; dct:description "Injected description" ;
  dcat:landingPage <${target}> .
`);
    },
  });
  const created = await app.api.post(
    '/api/v1/admin/harvest-sources',
    { name: 'inj-source', type: 'dcat-ap', url: `${source.url}/catalog.ttl`, organization: 'inj-org' },
    app.sysadmin,
  );
  if (created.status !== 201) throw new Error(created.text);
  const started = await app.api.post(`/api/v1/admin/harvest-sources/${created.body.id}/run`, undefined, app.sysadmin);
  if (started.status !== 202) throw new Error(started.text);
  await until(
    'the harvest run succeeds',
    async () => (await app.api.get(`/api/v1/admin/harvest-sources/${created.body.id}`, app.sysadmin)).body.lastRun?.status === 'succeeded',
    120_000,
  );
});
test.after.always(async () => {
  await app?.stop();
  await source?.close();
});

const turtle = async (path: string): Promise<Quad[]> => new Parser().parse((await app.api.get(path)).text);

test('the local dataset keeps its own title and description alone, in the catalog and in its own document', async (t) => {
  const subject = `${app.url}/dataset/${local.id}`;
  for (const path of ['/catalog.ttl', `/dataset/${local.id}.ttl`]) {
    const about = (await turtle(path)).filter((q) => q.subject.value === subject);
    const values = (predicate: string) => about.filter((q) => q.predicate.value === predicate).map((q) => q.object.value);
    t.deepEqual(values('http://purl.org/dc/terms/title'), ['The local one'], path);
    t.deepEqual(values('http://purl.org/dc/terms/description'), ['Made here.'], path);
    t.deepEqual(values('http://www.w3.org/1999/02/22-rdf-syntax-ns#type'), ['http://www.w3.org/ns/dcat#Dataset'], path);
  }
});

test('the harvested copy is in the catalog under its own IRI, without describing the local one', async (t) => {
  const quads = await turtle('/catalog.ttl');
  const injected = quads.filter((q) => q.object.value === 'Injected title');
  t.is(injected.length, 1, 'the harvested dataset carries its title once');
  t.not(injected[0]!.subject.value, `${app.url}/dataset/${local.id}`);
  t.false(quads.some((q) => q.object.value === 'http://xmlns.com/foaf/0.1/Document' && q.subject.value.startsWith(`${app.url}/dataset/`)));
});
