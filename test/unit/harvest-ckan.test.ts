import test from 'ava';
import type { ServerResponse } from 'node:http';
import { SourceInvalid, SourceUnavailable } from '../../src/domain/harvest/errors.ts';
import { ckanPackageItem, ckanSiteRoot } from '../../src/harvest/readers/ckan.ts';
import { sourceReader } from '../../src/harvest/readers/index.ts';
import { startFileServer } from '../helpers/file-server.ts';

/**
 * Issue 18: the CKAN reader's failures, against fake CKAN sites on loopback (the happy path runs against
 * a real Almanac in test/api/harvest-readers.test.ts): paging that ignores `start`, answers that are not
 * a CKAN API, a refused search, a site that is down; and package dicts in CKAN's own odd shapes.
 */

const READ = { since: null, timeoutMs: 10_000 };
const json = (res: ServerResponse, body: unknown, status = 200): void =>
  void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const page = (ids: string[]) => ({
  success: true,
  result: { count: 99, results: ids.map((id) => ({ id, name: id, title: id.toUpperCase() })) },
});

let server: Awaited<ReturnType<typeof startFileServer>>;
const queries: URLSearchParams[] = [];
test.before(async () => {
  server = await startFileServer({
    // Ignores start: the same page again and again.
    '/stuck/api/3/action/package_search': (_req, res) => json(res, page(['a', 'b'])),
    '/paged/api/3/action/package_search': (req, res) => {
      const query = new URL(req.url!, 'http://x').searchParams;
      queries.push(query);
      const start = Number(query.get('start'));
      json(res, page(start === 0 ? ['a', 'b'] : start === 2 ? ['c'] : []));
    },
    // Caps rows at 2 whatever is asked, as ckan.search.rows_max does.
    '/capped/api/3/action/package_search': (req, res) => {
      const start = Number(new URL(req.url!, 'http://x').searchParams.get('start'));
      json(res, page(['a', 'b', 'c', 'd', 'e'].slice(start, start + 2)));
    },
    '/html/api/3/action/package_search': (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'),
    '/other/api/3/action/package_search': (_req, res) => json(res, { results: [] }),
    '/refusing/api/3/action/package_search': (_req, res) =>
      json(res, { success: false, error: { __type: 'Search Query Error', message: 'Invalid search query' } }, 409),
    '/down/api/3/action/package_search': (_req, res) => void res.writeHead(502).end('Bad Gateway'),
  });
});
test.after.always(() => server?.close());

const reader = (site: string, rows?: number) =>
  sourceReader('ckan', `${server.url}${site}`, { pageSize: rows, allowPrivateNetworks: true });

test('package_search is paged with rows, start += results and sort=id asc, with the since filter, until an empty page', async (t) => {
  const since = new Date('2024-05-01T10:00:00Z');
  const r = reader('/paged/api/3/action/', 2);
  const first = await r.readPage(null, { ...READ, since });
  const second = await r.readPage(first.next, { ...READ, since });
  const third = await r.readPage(second.next, { ...READ, since });
  t.deepEqual([first.items.length, second.items.length, third.items.length], [2, 1, 0]);
  t.is(third.next, null);
  t.deepEqual(
    queries.map((q) => Object.fromEntries(q)),
    [0, 2, 3].map((start) => ({
      rows: '2',
      start: String(start),
      sort: 'id asc',
      fq: 'metadata_modified:[2024-05-01T10:00:00.000Z TO *]',
    })),
  );
});

test('a site that caps rows below what is asked is still read whole: start advances by the results received', async (t) => {
  const r = reader('/capped', 100);
  const seen: string[] = [];
  for (let page = await r.readPage(null, READ); ; page = await r.readPage(page.next, READ)) {
    seen.push(...page.items.map((i) => (i.kind === 'record' ? i.record.remoteId : i.remoteId)));
    if (!page.next) break;
  }
  t.deepEqual(seen, ['a', 'b', 'c', 'd', 'e']);
});

test('two identical consecutive pages are SourceInvalid: the site does not page', async (t) => {
  const r = reader('/stuck');
  const first = await r.readPage(null, READ);
  t.is(first.items.length, 2);
  const err = await t.throwsAsync(r.readPage(first.next, READ), { instanceOf: SourceInvalid });
  t.regex(err.message, /paging of .*\/stuck does not seem to work/);
});

test('an answer that is not a CKAN API is SourceInvalid, a refused search names CKAN’s message, a 502 is SourceUnavailable', async (t) => {
  t.regex(
    (await t.throwsAsync(reader('/html').readPage(null, READ), { instanceOf: SourceInvalid })).message,
    /not a CKAN API answer: it is not JSON/,
  );
  t.regex((await t.throwsAsync(reader('/other').readPage(null, READ), { instanceOf: SourceInvalid })).message, /is not a CKAN Action API/);
  t.regex(
    (await t.throwsAsync(reader('/refusing').readPage(null, READ), { instanceOf: SourceInvalid })).message,
    /HTTP 409.*Invalid search query/,
  );
  t.regex((await t.throwsAsync(reader('/nothing').readPage(null, READ), { instanceOf: SourceInvalid })).message, /HTTP 404/);
  t.regex((await t.throwsAsync(reader('/down').readPage(null, READ), { instanceOf: SourceUnavailable })).message, /HTTP 502/);
});

test('package dicts map CKAN’s shapes: naive UTC times, vocabulary tags left out, resources without a URL dropped, odd names re-slugged', (t) => {
  t.is(ckanSiteRoot('https://demo.ckan.org/api/3/action/'), 'https://demo.ckan.org');
  const item = ckanPackageItem('https://demo.ckan.org', {
    id: 'p1',
    name: '_Odd--Name',
    title: '  ',
    license_id: null,
    metadata_modified: '2024-05-01T10:00:00.123456',
    private: true,
    tags: [{ name: 'a' }, { display_name: ' B  b ', name: 'b-b' }, { name: 'A' }, { name: 'geo', vocabulary_id: 'v1' }],
    resources: [
      { url: '', name: 'upload never sent' },
      { url: 'https://x.org/f.csv', size: '42', format: 'CSV' },
    ],
    organization: { name: 'org', title: '' },
    groups: [{ name: 'g', display_name: 'G' }, { title: 'no name' }],
  });
  t.deepEqual(item, {
    kind: 'record',
    record: {
      remoteId: 'p1',
      remoteUrl: 'https://demo.ckan.org/dataset/_Odd--Name',
      name: 'odd-name',
      title: '_Odd--Name',
      notes: null,
      tags: ['a', 'B b'],
      licenseId: 'notspecified',
      organization: { name: 'org', title: 'org', description: null },
      groups: [{ name: 'g', title: 'G' }],
      private: true,
      author: null,
      authorEmail: null,
      maintainer: null,
      maintainerEmail: null,
      version: null,
      url: null,
      modified: '2024-05-01T10:00:00.123Z',
      // A dict with no record keys, extras or fields of its own brings none.
      metadata: {},
      extras: [],
      customFields: {},
      resources: [
        {
          url: 'https://x.org/f.csv',
          name: null,
          description: null,
          format: 'CSV',
          mimetype: null,
          size: 42,
          metadata: {},
          customExtras: [],
        },
      ],
    },
  });
  t.deepEqual(ckanPackageItem('s', { name: 'no-id' }), {
    kind: 'refused',
    remoteId: 'no-id',
    title: 'no-id',
    reason: 'a package without an id',
  });
  t.deepEqual(ckanPackageItem('s', { id: 'x' }), {
    kind: 'refused',
    remoteId: 'x',
    title: null,
    reason: 'a package with neither a title nor a name',
  });
});
