import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SourceInvalid, SourceUnavailable } from '../../src/domain/harvest/errors.ts';
import type { HarvestItem, HarvestRecord } from '../../src/domain/harvest/record.ts';
import { dcatUsItem } from '../../src/harvest/readers/dcat-us.ts';
import { sourceReader } from '../../src/harvest/readers/index.ts';
import { startFileServer } from '../helpers/file-server.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';

/**
 * Issue 18: every real agency data.json in the shared data (DCAT-US 1.1) maps completely, each dataset a
 * record or a refusal with its reason, read page by page from loopback as a harvest reads it.
 */

const DIR = join(SHARED_DATA, 'dcat-us');
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.json'));
const READ = { since: null, timeoutMs: 30_000 };

type Raw = Record<string, any>;
const raw = (file: string): Raw[] => JSON.parse(readFileSync(join(DIR, file), 'utf8')).dataset;

let server: Awaited<ReturnType<typeof startFileServer>>;
let republish = 0;
test.before(async () => {
  const routes: Record<string, (req: unknown, res: import('node:http').ServerResponse) => void> = {};
  for (const file of FILES) {
    const body = readFileSync(join(DIR, file));
    routes[`/${file}`] = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  }
  routes['/counted.json'] = routes['/gsa.json']!;
  routes['/down.json'] = (_req, res) => res.writeHead(503).end('maintenance');
  routes['/html.json'] = (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>not json</html>');
  routes['/catalog-object.json'] = (_req, res) => res.writeHead(200).end('{"conformsTo":"x","datasets":[]}');
  // A catalog that is republished (one more dataset first) every time it is fetched.
  routes['/republished.json'] = (_req, res) => {
    republish += 1;
    const datasets = Array.from({ length: 3 + republish }, (_, i) => ({ identifier: `r-${republish}-${i}`, title: `R ${i}` }));
    res.writeHead(200).end(JSON.stringify({ dataset: datasets }));
  };
  server = await startFileServer(routes);
});
test.after.always(() => server?.close());

async function readAll(url: string, pageSize = 100) {
  const reader = sourceReader('dcat-us', url, { pageSize, allowPrivateNetworks: true });
  const items: HarvestItem[] = [];
  let cursor = null;
  let pages = 0;
  do {
    const page = await reader.readPage(cursor, READ);
    items.push(...page.items);
    cursor = page.next;
    pages += 1;
  } while (cursor);
  return { items, pages };
}

test('the four real data.json catalogs map completely: every dataset a record or a refusal with its reason', async (t) => {
  t.is(FILES.length, 4);
  const reasons = new Map<string, number>();
  for (const file of FILES) {
    const datasets = raw(file);
    const { items, pages } = await readAll(`${server.url}/${file}`, 40);
    t.is(items.length, datasets.length, `${file}: one item per dataset`);
    t.is(pages, Math.ceil(datasets.length / 40), `${file}: pages of 40`);
    const records = items.filter((i) => i.kind === 'record');
    const refused = items.filter((i) => i.kind === 'refused');
    for (const r of refused) {
      t.truthy(r.reason, `${file}: ${r.remoteId} refused with a reason`);
      reasons.set(r.reason, (reasons.get(r.reason) ?? 0) + 1);
    }
    t.deepEqual(
      items.map((i) => (i.kind === 'record' ? i.record.remoteId : i.remoteId)),
      datasets.map((d) => String(d.identifier).trim()),
      `${file}: in document order, keyed by identifier`,
    );
    t.log(`${file}: ${datasets.length} datasets, ${records.length} records, ${refused.length} refused, ${pages} pages`);
  }
  for (const [reason, count] of reasons) t.log(`refused ${count}× — ${reason}`);
  // Every access level is imported (gsa.json marks 33 datasets non-public), and no dataset lacks an identifier or title.
  t.deepEqual([...reasons], []);
});

test('DCAT-US fields map onto the record: identifier, title, keyword, contactPoint, license, landingPage, distribution', async (t) => {
  const { items } = await readAll(`${server.url}/fcc.json`);
  const datasets = raw('fcc.json');
  const records = new Map(items.flatMap((i) => (i.kind === 'record' ? [[i.record.remoteId, i.record] as const] : [])));
  for (const d of [datasets[0]!, datasets[17]!, datasets.at(-1)!]) {
    const r = records.get(d.identifier)!;
    t.is(r.title, d.title.trim());
    t.is(r.notes, d.description.trim() || null);
    t.is(r.url, d.landingPage);
    t.is(r.maintainer, d.contactPoint.fn);
    t.is(r.maintainerEmail, d.contactPoint.hasEmail.replace(/^mailto:/, ''));
    t.is(r.organization?.title, d.publisher.name);
    t.false(r.private);
    t.is(r.licenseId, d.license === 'https://www.usa.gov/government-works' ? 'us-pd' : 'notspecified');
    t.is(r.modified, new Date(d.modified).toISOString());
    t.deepEqual(r.tags.length, new Set((d.keyword ?? []).map((k: string) => k.trim().toLowerCase()).filter(Boolean)).size);
    t.deepEqual(
      r.resources.map((res) => [res.url, res.mimetype]),
      (d.distribution ?? []).map((dist: Raw) => [dist.downloadURL ?? dist.accessURL, dist.mediaType ?? null]),
    );
  }
  // A data.json without a license is "not specified"; fcc marks its government works with usa.gov's URL.
  t.true([...records.values()].some((r) => r.licenseId === 'us-pd'));
  t.true([...records.values()].some((r) => r.licenseId === 'notspecified'));
});

test('gsa.json: CC0 URLs become cc-zero, every access level is public metadata with its level shown, formats and titles come along', async (t) => {
  const { items } = await readAll(`${server.url}/gsa.json`);
  const datasets = raw('gsa.json');
  const byId = new Map(items.map((i) => [i.kind === 'record' ? i.record.remoteId : i.remoteId, i]));
  const cc0 = datasets.find((d) => d.license === 'https://creativecommons.org/publicdomain/zero/1.0/' && d.accessLevel === 'public')!;
  const cc0Record = (byId.get(cc0.identifier) as { record: HarvestRecord }).record;
  t.is(cc0Record.licenseId, 'cc-zero');
  const restricted = datasets.find((d) => d.accessLevel === 'restricted public')!;
  t.like(byId.get(restricted.identifier), { kind: 'record', record: { private: false, metadata: { accessLevel: 'restricted public' } } });
  const nonPublic = datasets.find((d) => d.accessLevel === 'non-public')!;
  t.like(byId.get(nonPublic.identifier), {
    kind: 'record',
    record: { remoteId: nonPublic.identifier, title: nonPublic.title.trim(), private: false, metadata: { accessLevel: 'non-public' } },
  });
  const withFormat = datasets.find((d) => d.accessLevel === 'public' && d.distribution?.some((x: Raw) => x.format && x.title))!;
  const dist = withFormat.distribution.find((x: Raw) => x.format && x.title);
  const resource = (byId.get(withFormat.identifier) as { record: HarvestRecord }).record.resources.find(
    (r) => r.url === (dist.downloadURL ?? dist.accessURL),
  )!;
  t.like(resource, { name: dist.title.trim(), format: dist.format.trim() });
  // A usa.gov public-domain label is U.S. Government Work; an unknown license URL is kept as written.
  const usaLabel = datasets.find((d) => d.license === 'http://www.usa.gov/publicdomain/label/1.0/' && d.accessLevel === 'public')!;
  t.is((byId.get(usaLabel.identifier) as { record: HarvestRecord }).record.licenseId, 'us-pd');
  const mit = datasets.find((d) => d.license === 'https://opensource.org/licenses/MIT-0')!;
  t.is((byId.get(mit.identifier) as { record: HarvestRecord }).record.licenseId, 'https://opensource.org/licenses/MIT-0');
});

test('a dataset without identifier or title and a repeated identifier are refused, each with its reason; an unknown accessLevel is kept as written', (t) => {
  const firstAt = new Map([['dup', 0]]);
  t.like(dcatUsItem({ title: 'No id' }, 4), { kind: 'refused', remoteId: 'dataset[4]', title: 'No id', reason: 'no identifier' });
  t.like(dcatUsItem({ identifier: '  ', title: 'Blank id' }, 5), { kind: 'refused', reason: 'no identifier' });
  t.like(dcatUsItem({ identifier: 'x', title: ' ' }, 6), { kind: 'refused', remoteId: 'x', reason: 'no title' });
  t.like(dcatUsItem({ identifier: 'dup', title: 'Again' }, 7, firstAt), {
    kind: 'refused',
    remoteId: 'dup#dataset[7]',
    reason: 'the identifier is repeated (first used by dataset[0])',
  });
  t.like(dcatUsItem({ identifier: 'y', title: 'Y', accessLevel: 'secret' }, 8), {
    kind: 'record',
    record: { private: false, metadata: { identifier: 'y' }, extras: [{ key: 'accessLevel', value: 'secret' }] },
  });
  t.like(dcatUsItem('text', 9), { kind: 'refused', remoteId: 'dataset[9]', reason: 'not a JSON object' });
  // Keywords as one comma-separated string (DCAT-US 1.0), cleaned and deduplicated case-insensitively.
  t.like(dcatUsItem({ identifier: 'z', title: 'Z', keyword: ' Air ,air,  water   quality ,,' }, 10), {
    kind: 'record',
    record: { tags: ['Air', 'water quality'], licenseId: 'notspecified', modified: null },
  });
});

test('a data.json answering 503 is SourceUnavailable; one that is not JSON or has no dataset array is SourceInvalid', async (t) => {
  const read = (path: string) => sourceReader('dcat-us', `${server.url}${path}`, { allowPrivateNetworks: true }).readPage(null, READ);
  const down = await t.throwsAsync(read('/down.json'), { instanceOf: SourceUnavailable });
  t.regex(down.message, /HTTP 503/);
  t.is(down.name, 'SourceUnavailable');
  t.regex((await t.throwsAsync(read('/html.json'), { instanceOf: SourceInvalid })).message, /not a DCAT-US data\.json: it is not JSON/);
  t.regex((await t.throwsAsync(read('/catalog-object.json'), { instanceOf: SourceInvalid })).message, /no "dataset" array/);
  t.regex((await t.throwsAsync(read('/missing.json'), { instanceOf: SourceInvalid })).message, /HTTP 404/);
  // Harvest sources reach loopback only when the caller allows private networks.
  const refused = sourceReader('dcat-us', `${server.url}/fcc.json`, { allowPrivateNetworks: false }).readPage(null, READ);
  t.regex((await t.throwsAsync(refused, { instanceOf: SourceInvalid })).message, /loopback/);
});

// Serial: the cache holds a few documents, and the other tests read five more at once.
test.serial(
  'the document is fetched once per run, and a page whose cursor names another copy of the document (republished mid-run) starts again from its first dataset',
  async (t) => {
    const { pages } = await readAll(`${server.url}/counted.json`, 50);
    t.is(pages, 7);
    t.is(server.hits.filter((h) => h === '/counted.json').length, 1, 'seven pages, one fetch');

    // Page 2 of a run that began on another copy of the document (the cursor's digest differs): it starts over.
    const url = `${server.url}/republished.json`;
    const first = await sourceReader('dcat-us', url, { pageSize: 2, allowPrivateNetworks: true }).readPage(null, READ);
    t.deepEqual(
      first.items.map((i) => (i as { record: HarvestRecord }).record.remoteId),
      ['r-1-0', 'r-1-1'],
    );
    const stale = { ...first.next!, digest: 'a digest of another document' };
    const again = await sourceReader('dcat-us', url, { pageSize: 2, allowPrivateNetworks: true }).readPage(stale, READ);
    t.deepEqual(
      again.items.map((i) => (i as { record: HarvestRecord }).record.remoteId),
      ['r-1-0', 'r-1-1'],
      'the cached document, under another digest, is read from its start',
    );
    t.is(again.next?.offset, 2);
  },
);

test('filters leave out the datasets whose field equals one of their values; defaults fill the empty fields', (t) => {
  const config = {
    filters: { accessLevel: ['non-public'], bureauCode: ['009:10'] },
    defaults: { programCode: ['000:000'], language: ['en-US'] },
  };
  t.is(dcatUsItem({ identifier: 'a', title: 'A', accessLevel: 'Non-Public ' }, 0, undefined, config), null, 'matched trimmed, in any case');
  t.is(dcatUsItem({ identifier: 'b', title: 'B', bureauCode: ['023:00', '009:10'] }, 1, undefined, config), null, 'a list by any item');
  t.like(dcatUsItem({ identifier: 'c', title: 'C', accessLevel: 'public', programCode: [], language: ['es'] }, 2, undefined, config), {
    kind: 'record',
    record: { metadata: { accessLevel: 'public', programCode: ['000:000'], language: ['es'] } },
  });
});

test('every DCAT-US 1.1 field lands in its typed place, and what has none is kept under its own name', (t) => {
  const item = dcatUsItem(
    {
      '@type': 'dcat:Dataset',
      identifier: 'full-1',
      title: 'Full',
      description: 'All of it',
      keyword: ['b', 'a'],
      modified: '2020-01',
      issued: '2019-05-01',
      publisher: { '@type': 'org:Organization', name: 'Office', subOrganizationOf: { '@type': 'org:Organization', name: 'Agency' } },
      contactPoint: { '@type': 'vcard:Contact', fn: 'Jo', hasEmail: 'mailto:jo@example.gov' },
      accessLevel: 'restricted public',
      rights: 'Ask first',
      license: 'https://creativecommons.org/publicdomain/zero/1.0',
      landingPage: 'https://example.gov/full',
      temporal: '2000-01-01/2010-12-31T00:00:00Z',
      spatial: '-124.7,24.5,-66.9,49.4',
      accrualPeriodicity: 'R/P1M',
      language: ['en-US'],
      theme: ['Health'],
      conformsTo: 'https://example.gov/schema',
      describedBy: 'https://example.gov/dictionary.csv',
      describedByType: 'text/csv',
      references: ['https://example.gov/guide'],
      isPartOf: 'collection-1',
      bureauCode: ['009:10'],
      programCode: ['009:001'],
      dataQuality: true,
      primaryITInvestmentUII: '009-000000001',
      systemOfRecords: 'https://example.gov/sorn',
      agencyNote: { any: 'thing' },
      distribution: [
        {
          '@type': 'dcat:Distribution',
          title: 'CSV',
          description: 'The file',
          format: 'CSV',
          mediaType: 'text/csv',
          accessURL: 'https://example.gov/page',
          downloadURL: 'https://example.gov/file.csv',
          conformsTo: 'https://example.gov/schema',
          describedBy: 'https://example.gov/dictionary.csv',
          describedByType: 'text/csv',
          extraKey: 'kept',
        },
      ],
    },
    0,
  );
  t.like(item, {
    kind: 'record',
    record: {
      remoteId: 'full-1',
      licenseId: 'cc-zero',
      url: 'https://example.gov/full',
      maintainer: 'Jo',
      maintainerEmail: 'jo@example.gov',
      metadata: {
        identifier: 'full-1',
        modified: '2020-01',
        issued: '2019-05-01',
        publisher: { name: 'Office', subOrganizationOf: { name: 'Agency' } },
        contactPoint: [{ name: 'Jo', email: 'jo@example.gov' }],
        accessLevel: 'restricted public',
        temporal: [{ start: '2000-01-01', end: '2010-12-31T00:00:00Z' }],
        spatial: [{ bbox: [-124.7, 24.5, -66.9, 49.4] }],
        theme: [{ label: 'Health' }],
        conformsTo: ['https://example.gov/schema'],
        describedBy: { url: 'https://example.gov/dictionary.csv', type: 'text/csv' },
        isPartOf: ['collection-1'],
        bureauCode: ['009:10'],
        programCode: ['009:001'],
        dataQuality: true,
        primaryITInvestmentUII: '009-000000001',
      },
    },
  });
  const record = (item as { record: HarvestRecord }).record;
  // The unknown key as JSON; the license URL (spelled without its end slash) and keywords (sorted here) as written.
  t.deepEqual(record.extras, [
    { key: 'agencyNote', value: '{"any":"thing"}' },
    { key: 'keyword', value: '["b","a"]' },
    { key: 'license', value: 'https://creativecommons.org/publicdomain/zero/1.0' },
  ]);
  t.like(record.resources[0], {
    url: 'https://example.gov/file.csv',
    name: 'CSV',
    mimetype: 'text/csv',
    metadata: {
      accessUrl: 'https://example.gov/page',
      downloadUrl: 'https://example.gov/file.csv',
      conformsTo: ['https://example.gov/schema'],
    },
    customExtras: [{ key: 'extraKey', value: 'kept' }],
  });
});
