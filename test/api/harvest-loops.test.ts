import test from 'ava';
import { startTestApp, until, type TestApp } from '../helpers/app.ts';
import { startFileServer } from '../helpers/file-server.ts';

/**
 * Issue 32, finding 1: sources that page forever end, with a reason an operator can act on. A CKAN site
 * that answers every `start` with the same record (its `metadata_modified` changing, so no page equals the
 * one before), a DCAT-AP catalog whose `hydra:next` goes A → B → A, and a source of endless new records
 * stopped by the source's cap on pages.
 */

let app: TestApp;
let sources: Awaited<ReturnType<typeof startFileServer>>;
let served = 0;

const TURTLE = `@prefix dcat: <http://www.w3.org/ns/dcat#> .
@prefix dct: <http://purl.org/dc/terms/> .
@prefix hydra: <http://www.w3.org/ns/hydra/core#> .
`;
const dcatPage = (self: string, next: string, dataset: string) => `${TURTLE}
<catalog> a dcat:Catalog ; dct:title "Round" ; dcat:dataset <${dataset}> ; hydra:view <${self}> .
<${self}> a hydra:PartialCollectionView ; hydra:next <${next}> .
<${dataset}> a dcat:Dataset ; dct:identifier "${dataset}" ; dct:title "Dataset ${dataset}" .
`;

const ckanAnswer = (res: import('node:http').ServerResponse, results: unknown[]) => {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ success: true, result: { count: 1_000_000, results } }));
};
const ckanPackage = (id: string, answer: number) => ({
  id,
  name: id,
  title: `Package ${id}`,
  license_id: 'cc-by',
  tags: [],
  groups: [],
  resources: [],
  metadata_modified: new Date(Date.UTC(2026, 0, 1) + answer).toISOString(),
});

test.before(async () => {
  sources = await startFileServer({
    // Every start: the same record, with a field that changes on every answer.
    '/same/api/3/action/package_search': (_req, res) => ckanAnswer(res, [ckanPackage('same-record', served++)]),
    // Every start: a record never seen before, for ever.
    '/endless/api/3/action/package_search': (req, res) => {
      const start = new URL(req.url!, 'http://x').searchParams.get('start');
      ckanAnswer(res, [ckanPackage(`endless-${start}`, served++)]);
    },
    '/round/a.ttl': (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/turtle' });
      res.end(dcatPage('a.ttl', 'b.ttl', 'dataset-a'));
    },
    '/round/b.ttl': (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/turtle' });
      res.end(dcatPage('b.ttl', 'a.ttl', 'dataset-b'));
    },
    // A → B → C → B: the page URL comes round again.
    ...Object.fromEntries(
      [
        ['a', 'b'],
        ['b', 'c'],
        ['c', 'b'],
      ].map(([self, next]) => [
        `/again/${self}.ttl`,
        (_req: unknown, res: import('node:http').ServerResponse) => {
          res.writeHead(200, { 'Content-Type': 'text/turtle' });
          res.end(dcatPage(`${self}.ttl`, `${next}.ttl`, `again-${self}`));
        },
      ]),
    ),
  });
  app = await startTestApp();
  const org = await app.api.post('/api/v1/organizations', { name: 'loop-org', title: 'Loops' }, app.sysadmin);
  if (org.status !== 201) throw new Error(org.text);
});
test.after.always(async () => {
  await app?.stop();
  await sources?.close();
});

async function harvestToEnd(body: Record<string, unknown>) {
  const created = await app.api.post('/api/v1/admin/harvest-sources', { organization: 'loop-org', ...body }, app.sysadmin);
  if (created.status !== 201) throw new Error(created.text);
  const started = await app.api.post(`/api/v1/admin/harvest-sources/${created.body.id}/run`, undefined, app.sysadmin);
  if (started.status !== 202) throw new Error(started.text);
  let run: { status: string; pages: number; reason: string | null; created: number } | undefined;
  await until(
    'the harvest run ends',
    async () => {
      const reply = await app.api.get(`/api/v1/admin/harvest-sources/${created.body.id}`, app.sysadmin);
      run = reply.body.lastRun;
      return run?.status !== undefined && run.status !== 'running';
    },
    120_000,
  );
  return { source: created.body, run: run! };
}

test('a CKAN source answering every start with the same record fails at its second page, saying it goes round', async (t) => {
  const { run } = await harvestToEnd({ name: 'loop-same', type: 'ckan', url: `${sources.url}/same` });
  t.is(run.status, 'failed');
  t.regex(run.reason ?? '', /goes round: page 2 brought only records that earlier pages of this run brought \(same-record\)/);
  t.is(run.created, 1, 'what the first page brought stays');
});

test('a DCAT-AP catalog whose hydra:next goes A → B → A fails when A brings its records again', async (t) => {
  const { run } = await harvestToEnd({ name: 'loop-round', type: 'dcat-ap', url: `${sources.url}/round/a.ttl` });
  t.is(run.status, 'failed');
  t.regex(run.reason ?? '', /goes round: page 3 brought only records that earlier pages of this run brought \(dataset-a\)/);
  t.is(run.created, 2);
});

test('a DCAT-AP catalog whose hydra:next goes A → B → C → B fails when it asks for B again', async (t) => {
  const { run } = await harvestToEnd({ name: 'loop-again', type: 'dcat-ap', url: `${sources.url}/again/a.ttl` });
  t.is(run.status, 'failed');
  t.regex(run.reason ?? '', /paging goes round: page 4 asks again for http:\/\/127\.0\.0\.1:\d+\/again\/b\.ttl, read before as page 2/);
  t.is(run.created, 3);
});

test('a source of endless new records stops at the source’s cap on pages, saying so', async (t) => {
  const { source, run } = await harvestToEnd({ name: 'loop-endless', type: 'ckan', url: `${sources.url}/endless`, maxPages: 4 });
  t.is(source.maxPages, 4);
  t.is(source.maxRunMinutes, 1440, 'a day unless told');
  t.is(run.status, 'failed');
  t.is(run.pages, 4);
  t.regex(run.reason ?? '', /stopped after 4 pages, the source's cap \(maxPages\)/);
});

test('the caps are checked: a cap below one page or above a week is a 422', async (t) => {
  const base = { name: 'loop-bad', type: 'ckan', url: `${sources.url}/endless`, organization: 'loop-org' };
  t.is((await app.api.post('/api/v1/admin/harvest-sources', { ...base, maxPages: 0 }, app.sysadmin)).status, 422);
  t.is((await app.api.post('/api/v1/admin/harvest-sources', { ...base, maxRunMinutes: 7 * 24 * 60 + 1 }, app.sysadmin)).status, 422);
});
