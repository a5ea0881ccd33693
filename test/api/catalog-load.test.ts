import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';

/**
 * Issue 18: real catalogs are big and messy. The 1,878 records of data.gov agencies' catalogs in
 * catalog.jsonl (SOURCES.md) all load through POST /packages: up to 445 resources, 141 tags, tags of
 * 298 characters, ftp links; and a record over the caps gets a 422 that says which cap.
 */

interface CatalogRecord {
  name: string;
  title: string;
  notes: string | null;
  tags: string[];
  organization: string;
  license_id: string;
  resources: Array<{ name: string | null; format: string | null; url: string }>;
}

const records: CatalogRecord[] = readFileSync(join(SHARED_DATA, 'catalog/catalog.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line));

const orgName = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 90);

/** Three records' notes hold a JSON escape cut in half, which no UTF-8 text can store. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A catalog record as a harvester maps it (src/domain/harvest/apply.ts's mapRecord does the same): a
 * lone surrogate becomes U+FFFD; a tag holding commas is CKAN's tag_string, so it is split there; a
 * resource per URL, the first that lists it.
 */
function body(r: CatalogRecord) {
  const seen = new Set<string>();
  return {
    name: r.name,
    title: r.title,
    notes: r.notes?.replace(LONE_SURROGATE, '\ufffd') ?? null,
    ownerOrg: orgName(r.organization),
    licenseId: r.license_id,
    tags: [
      ...new Set(
        r.tags
          .flatMap((t) => t.split(','))
          .map((t) => t.trim())
          .filter(Boolean),
      ),
    ],
    resources: r.resources
      .filter((res) => !seen.has(res.url) && seen.add(res.url))
      .map((res) => ({ name: res.name, format: res.format, url: res.url })),
  };
}

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.stop();
});

test.serial('the catalog holds what the old caps refused: more than 200 resources, 100 tags, tags over 100 characters, ftp links', (t) => {
  t.is(records.length, 1878);
  t.true(records.some((r) => r.resources.length > 200));
  t.true(records.some((r) => r.tags.length > 100));
  t.true(records.some((r) => r.tags.some((tag) => tag.length > 100)));
  t.true(records.some((r) => r.resources.some((res) => res.url.startsWith('ftp://'))));
});

test.serial('all 1,878 records of catalog.jsonl are created through POST /packages, 8 at a time', async (t) => {
  t.timeout(10 * 60_000);
  const started = Date.now();
  const orgs = [...new Map(records.map((r) => [orgName(r.organization), r.organization])).entries()];
  for (const [name, title] of orgs) {
    const res = await app.api.post('/api/v1/organizations', { name, title: title.slice(0, 300) }, app.sysadmin);
    t.is(res.status, 201, `${name}: ${JSON.stringify(res.body)}`);
  }

  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < records.length) {
      const record = records[next++]!;
      const res = await app.api.post('/api/v1/packages', body(record), app.sysadmin);
      if (res.status !== 201) failures.push(`${record.name}: ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  t.log(`${records.length} records in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  t.deepEqual(failures, []);

  const list = await app.api.get('/api/v1/packages?limit=1', app.sysadmin);
  t.is(list.body.count, records.length);
  const biggest = records.reduce((a, b) => (b.resources.length > a.resources.length ? b : a));
  const shown = await app.api.get(`/api/v1/packages/${biggest.name}`);
  t.is(shown.body.resources.length, new Set(biggest.resources.map((r) => r.url)).size);
});

test.serial('a dataset over the caps is 422 naming each cap: at most 5,000 resources and 1,000 tags', async (t) => {
  await app.api.post('/api/v1/organizations', { name: 'cap-org' }, app.sysadmin);
  const res = await app.api.post(
    '/api/v1/packages',
    {
      name: 'too-big',
      ownerOrg: 'cap-org',
      licenseId: 'cc-by',
      tags: Array.from({ length: 1001 }, (_, i) => `t${i}`),
      resources: Array.from({ length: 5001 }, (_, i) => ({ url: `http://x.org/${i}` })),
    },
    app.sysadmin,
  );
  t.is(res.status, 422);
  t.deepEqual(
    res.body.errors.filter((e: { path: string }) => e.path === 'resources' || e.path === 'tags'),
    [
      { path: 'tags', message: 'too big: 1,001 tags (at most 1,000)' },
      { path: 'resources', message: 'too big: 5,001 resources (at most 5,000)' },
    ],
  );
  t.is((await app.api.get('/api/v1/packages/too-big')).status, 404);
});

test.serial('a tag over the length cap is 422 naming the tag', async (t) => {
  const long = 'x'.repeat(600);
  const res = await app.api.post(
    '/api/v1/packages',
    { name: 'long-tag', ownerOrg: 'cap-org', licenseId: 'cc-by', tags: ['fine', long] },
    app.sysadmin,
  );
  t.is(res.status, 422);
  t.is(res.body.errors[0].path, 'tags.1');
  t.regex(res.body.errors[0].message, /^tag "x{600}" is too long: 600 characters \(at most [\d,]+\)$/);
});
