import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { catalogRecords, orgName, packageBody } from '../helpers/catalog-records.ts';

/**
 * Issue 18: real catalogs are big and messy. The 1,878 records of data.gov agencies' catalogs in
 * catalog.jsonl (SOURCES.md) all load through POST /packages: up to 445 resources, 141 tags, tags of
 * 298 characters, ftp links; and a record over the caps gets a 422 that says which cap.
 */

const records = catalogRecords();

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
      const res = await app.api.post('/api/v1/packages', packageBody(record), app.sysadmin);
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
