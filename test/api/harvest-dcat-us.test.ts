import fs from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { startTestApp, until, type TestApp } from '../helpers/app.ts';
import { startFileServer } from '../helpers/file-server.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';

/**
 * Every real agency catalog in ../shared/data/dcat-us/ imports completely through a harvest run: each of
 * its datasets is created, or counted as failed with a clear reason; a second run changes nothing.
 */

const DIR = path.join(SHARED_DATA, 'dcat-us');
let app: TestApp;
let files: Awaited<ReturnType<typeof startFileServer>>;
let catalogs: string[];

test.before(async () => {
  catalogs = (await fs.readdir(DIR)).filter((f) => f.endsWith('.json')).sort();
  const served = Object.fromEntries(
    await Promise.all(
      catalogs.map(async (file) => {
        const body = await fs.readFile(path.join(DIR, file));
        return [
          `/${file}`,
          (_req: unknown, res: import('node:http').ServerResponse) =>
            void res.writeHead(200, { 'content-type': 'application/json' }).end(body),
        ];
      }),
    ),
  );
  [app, files] = await Promise.all([startTestApp(), startFileServer(served)]);
});
test.after.always(async () => {
  await files?.close();
  await app?.stop();
});

async function runToEnd(sourceId: string) {
  const started = await app.api.post(`/api/v1/admin/harvest-sources/${sourceId}/run`, undefined, app.sysadmin);
  if (started.status !== 202) throw new Error(started.text);
  let lastRun: Record<string, unknown> & { errors: Array<{ remoteId: string; reason: string }> } = { errors: [] };
  await until(
    'the harvest run ends',
    async () => {
      const reply = await app.api.get(`/api/v1/admin/harvest-sources/${sourceId}`, app.sysadmin);
      lastRun = reply.body.lastRun;
      return lastRun?.runId === started.body.runId && lastRun.status !== 'running';
    },
    600_000,
  );
  return lastRun;
}

test.serial('every data.json in the shared data imports completely: each dataset created, or failed with its reason', async (t) => {
  t.timeout(900_000);
  t.true(catalogs.length >= 4, `found ${catalogs.join(', ')}`);
  for (const file of catalogs) {
    const name = file.replace(/\.json$/, '');
    const raw = JSON.parse(await fs.readFile(path.join(DIR, file), 'utf8')) as { dataset: unknown[] };
    const org = await app.api.post('/api/v1/organizations', { name, title: name }, app.sysadmin);
    t.is(org.status, 201, org.text);
    const source = await app.api.post(
      '/api/v1/admin/harvest-sources',
      { name, type: 'dcat-us', url: `${files.url}/${file}`, organization: name },
      app.sysadmin,
    );
    t.is(source.status, 201, source.text);
    const run = await runToEnd(source.body.id);
    t.is(run.status, 'succeeded', JSON.stringify(run));
    t.is(run.seen, raw.dataset.length, `${file}: every dataset seen`);
    t.is(Number(run.created) + Number(run.failed), raw.dataset.length, `${file}: created or failed, nothing else`);
    for (const error of run.errors) t.true(error.reason.length > 5, `${file}: ${error.remoteId} failed without a clear reason`);
    const reasons = new Map<string, number>();
    for (const error of run.errors) reasons.set(error.reason, (reasons.get(error.reason) ?? 0) + 1);
    t.log(
      `${file}: ${raw.dataset.length} datasets, ${run.created} created, ${run.failed} failed ${JSON.stringify(Object.fromEntries(reasons))}`,
    );

    const listed = await app.api.get(`/api/v1/packages?organization=${name}&private=true&limit=1`, app.sysadmin);
    t.is(listed.body.count, run.created, `${file}: the created datasets are in the catalog`);
  }
});

test.serial('a second run of a data.json finds every dataset unchanged and creates nothing', async (t) => {
  const sources = await app.api.get('/api/v1/admin/harvest-sources?limit=100', app.sysadmin);
  const fcc = sources.body.results.find((s: { name: string }) => s.name === 'fcc');
  t.truthy(fcc, 'the fcc source of the first test');
  const first = fcc.lastRun;
  const again = await runToEnd(fcc.id);
  t.like(again, { status: 'succeeded', created: 0, updated: 0, unchanged: first.created, failed: first.failed, removed: 0 });
});

test.serial(
  'filters and defaults: 422 naming the field when they are not DCAT-US fields, values or a dcat-us source; shown in the source record',
  async (t) => {
    const org = await app.api.post('/api/v1/organizations', { name: 'filtered', title: 'Filtered' }, app.sysadmin);
    t.is(org.status, 201, org.text);
    const base = { name: 'filtered', type: 'dcat-us', url: `${files.url}/gsa.json`, organization: 'filtered' };
    const refused = [
      [{ filters: { accesslevel: ['non-public'] } }, 'filters.accesslevel'],
      [{ filters: { accessLevel: [] } }, 'filters.accessLevel'],
      [{ defaults: { bureauCode: '000:00' } }, 'defaults.bureauCode'],
      [{ defaults: { programCode: ['1:1'] } }, 'defaults.programCode'],
      [{ type: 'ckan', filters: { accessLevel: ['non-public'] } }, 'filters'],
    ] as const;
    for (const [body, path] of refused) {
      const reply = await app.api.post('/api/v1/admin/harvest-sources', { ...base, ...body }, app.sysadmin);
      t.is(reply.status, 422, `${JSON.stringify(body)}: ${reply.text}`);
      t.true(
        (reply.body.errors as Array<{ path: string }>).some((e) => e.path === path),
        `${JSON.stringify(body)} names ${path}: ${reply.text}`,
      );
    }
    const config = { filters: { accessLevel: ['non-public'] }, defaults: { language: ['en-US'] } };
    const created = await app.api.post('/api/v1/admin/harvest-sources', { ...base, ...config }, app.sysadmin);
    t.is(created.status, 201, created.text);
    t.like(created.body, config);
    const shown = await app.api.get(`/api/v1/admin/harvest-sources/${created.body.id}`, app.sysadmin);
    t.like(shown.body, config);
    const spec = await app.api.get('/api/v1/openapi.json');
    const schema = spec.body.components.schemas.HarvestSource.properties;
    t.truthy(schema.filters?.description?.includes('ckanext-datajson'), 'OpenAPI documents filters');
    t.truthy(schema.defaults?.description, 'OpenAPI documents defaults');
    // A PUT that breaks them is refused and changes nothing.
    const put = await app.api.put(`/api/v1/admin/harvest-sources/${created.body.id}`, { defaults: { dataQuality: 'yes' } }, app.sysadmin);
    t.is(put.status, 422, put.text);
    t.like((await app.api.get(`/api/v1/admin/harvest-sources/${created.body.id}`, app.sysadmin)).body, config);
  },
);

test.serial('a source whose filter excludes non-public records imports the others, with the defaults in the empty fields', async (t) => {
  const sources = await app.api.get('/api/v1/admin/harvest-sources?limit=100', app.sysadmin);
  const source = sources.body.results.find((s: { name: string }) => s.name === 'filtered');
  t.truthy(source, 'the source of the previous test');
  const raw = JSON.parse(await fs.readFile(path.join(DIR, 'gsa.json'), 'utf8')) as { dataset: Array<Record<string, unknown>> };
  const kept = raw.dataset.filter((d) => d.accessLevel !== 'non-public');
  const run = await runToEnd(source.id);
  t.like(run, { status: 'succeeded', seen: kept.length, failed: 0 });
  // Anonymously: every record but the non-public ones, all public metadata.
  const records: Array<Record<string, any>> = [];
  for (let offset = 0; ; offset += 100) {
    const page = await app.api.get(`/api/v1/packages?organization=filtered&limit=100&offset=${offset}`);
    t.is(page.status, 200, page.text);
    records.push(...page.body.results);
    if (page.body.results.length < 100) break;
  }
  t.is(records.length, kept.length);
  t.false(records.some((d) => d.accessLevel === 'non-public'));
  const restricted = kept.find((d) => d.accessLevel === 'restricted public')!;
  const record = records.find((d) => d.identifier === restricted.identifier);
  t.like(record, { private: false, accessLevel: 'restricted public' });
  // The default fills a record that has no language; one that has its own keeps it.
  const without = kept.find((d) => d.language === undefined)!;
  t.deepEqual(records.find((d) => d.identifier === without.identifier)?.language, ['en-US']);
  const own = kept.find((d) => Array.isArray(d.language) && d.language[0] !== 'en-US')!;
  t.deepEqual(records.find((d) => d.identifier === own.identifier)?.language, own.language);
});
