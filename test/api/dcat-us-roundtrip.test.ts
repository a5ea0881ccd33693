import fs from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import test from 'ava';
import { startTestApp, until, type TestApp } from '../helpers/app.ts';
import { python, tempFile } from '../helpers/feed-fixtures.ts';
import { startFileServer } from '../helpers/file-server.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';

/**
 * Issue 28's first "done when": every data.json of the shared data harvested into a fresh Almanac and
 * read back through its own /data.json comes back field for field (≥ 99 % of the source's leaf values
 * identical, datasets matched by identifier, distributions by position), the export validates against
 * the official DCAT-US 1.1 schema for every dataset that validated at its source, and harvesting the
 * export again gives the same datasets.
 */

const DIR = path.join(SHARED_DATA, 'dcat-us');
const SCHEMA_DIR = path.join(DIR, 'schema-v1.1');
type Dataset = Record<string, unknown> & { identifier: string };
type Catalog = { dataset: Dataset[] };

let app: TestApp;
let files: Awaited<ReturnType<typeof startFileServer>>;
let catalogs: string[];
let exported: Catalog | null = null;
/** The sources harvested, so the round trip can purge them first. */
const sources: string[] = [];

test.before(async () => {
  catalogs = (await fs.readdir(DIR)).filter((f) => f.endsWith('.json')).sort();
  const served: Record<string, (req: unknown, res: import('node:http').ServerResponse) => void> = {};
  for (const file of catalogs) {
    const body = await fs.readFile(path.join(DIR, file));
    served[`/${file}`] = (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  }
  // The first export, once the first test has read it: what a second Almanac would harvest.
  served['/export.json'] = (_req, res) =>
    void res.writeHead(exported ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(exported ?? {}));
  [app, files] = await Promise.all([startTestApp(), startFileServer(served)]);
});
test.after.always(async () => {
  await files?.close();
  await app?.stop();
});

async function harvest(name: string, url: string) {
  const org = await app.api.post('/api/v1/organizations', { name, title: name }, app.sysadmin);
  if (org.status !== 201) throw new Error(org.text);
  const source = await app.api.post('/api/v1/admin/harvest-sources', { name, type: 'dcat-us', url, organization: name }, app.sysadmin);
  if (source.status !== 201) throw new Error(source.text);
  sources.push(source.body.id);
  const started = await app.api.post(`/api/v1/admin/harvest-sources/${source.body.id}/run`, undefined, app.sysadmin);
  if (started.status !== 202) throw new Error(started.text);
  let lastRun: Record<string, any> = {};
  await until(
    'the harvest run ends',
    async () => {
      lastRun = (await app.api.get(`/api/v1/admin/harvest-sources/${source.body.id}`, app.sysadmin)).body.lastRun;
      return lastRun?.runId === started.body.runId && lastRun.status !== 'running';
    },
    600_000,
  );
  return lastRun;
}

/** Every leaf of a JSON value with its path (`.publisher.subOrganizationOf.name`, `.keyword[2]`). */
function leaves(value: unknown, at = '', out = new Map<string, unknown>()) {
  if (Array.isArray(value)) value.forEach((v, i) => leaves(v, `${at}[${i}]`, out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) leaves(v, `${at}.${k}`, out);
  else out.set(at, value);
  return out;
}

const validate = async (catalog: unknown) =>
  (await python('dcat_us_check.py', [await tempFile('data.json', JSON.stringify(catalog)), SCHEMA_DIR])) as {
    errors: number;
    catalog: string[];
    datasets: Record<string, string[]>;
  };

test.serial('every data.json harvested and read back through /data.json: ≥ 99 % of its values identical, 0 schema errors', async (t) => {
  t.timeout(1_200_000);
  t.true(catalogs.length >= 4, `found ${catalogs.join(', ')}`);
  for (const file of catalogs) {
    const run = await harvest(file.replace(/\.json$/, ''), `${files.url}/${file}`);
    t.is(run.status, 'succeeded', JSON.stringify(run));
    t.is(run.failed, 0, `${file}: ${JSON.stringify(run.errors)}`);
  }
  const reply = await app.api.get('/data.json');
  t.is(reply.status, 200);
  exported = reply.body as Catalog;
  const byId = new Map(exported.dataset.map((d) => [d.identifier, d]));

  let total = 0;
  let same = 0;
  for (const file of catalogs) {
    const source = JSON.parse(await fs.readFile(path.join(DIR, file), 'utf8')) as Catalog;
    let fileTotal = 0;
    let fileSame = 0;
    const differ = new Map<string, number>();
    for (const dataset of source.dataset) {
      const back = leaves(byId.get(dataset.identifier) ?? {});
      for (const [at, value] of leaves(dataset)) {
        fileTotal += 1;
        if (back.get(at) === value) fileSame += 1;
        else differ.set(at.replace(/\[\d+\]/g, '[]'), (differ.get(at.replace(/\[\d+\]/g, '[]')) ?? 0) + 1);
      }
    }
    const share = (100 * fileSame) / fileTotal;
    t.log(
      `${file}: ${fileSame} of ${fileTotal} values identical (${share.toFixed(2)} %)${differ.size ? `; differ: ${JSON.stringify([...differ])}` : ''}`,
    );
    t.true(share >= 99, `${file}: ${share.toFixed(2)} % identical`);
    total += fileTotal;
    same += fileSame;
  }
  t.log(`all files: ${same} of ${total} values identical (${((100 * same) / total).toFixed(2)} %)`);

  // The schema: every dataset that validated at its source validates here (and the catalog itself).
  const result = await validate(exported);
  t.deepEqual(result.catalog, []);
  const exportErrors = new Map(exported.dataset.map((d, i) => [d.identifier, result.datasets[String(i)] ?? []]));
  let checked = 0;
  let sourceErrors = 0;
  for (const file of catalogs) {
    const source = JSON.parse(await fs.readFile(path.join(DIR, file), 'utf8')) as Catalog;
    const atSource = await validate(source);
    sourceErrors += atSource.errors;
    source.dataset.forEach((d, i) => {
      if (atSource.datasets[String(i)]) return;
      checked += 1;
      t.deepEqual(exportErrors.get(d.identifier), [], `${file}: ${d.identifier} validated at its source`);
    });
  }
  t.log(
    `jsonschema (DCAT-US 1.1): ${checked} datasets valid at their source, 0 errors expected among them; the whole export has ${result.errors} errors, the sources ${sourceErrors}`,
  );
  t.true(result.errors <= sourceErrors, 'the export adds no schema error to what the sources had');
});

test.serial('harvesting the exported /data.json again gives the same datasets (round trip)', async (t) => {
  t.timeout(1_200_000);
  t.truthy(exported, 'the first test read the export');
  const first = exported!;
  // As a second catalog would: the first copies go, so the export's identifiers are each one dataset's
  // again (/data.json gives a dataset its own IRI where two claim one identifier).
  for (const id of sources.splice(0)) {
    const purged = await app.api.delete(`/api/v1/admin/harvest-sources/${id}?purge=true`, app.sysadmin);
    t.true([202, 204].includes(purged.status), purged.text);
  }
  await until(
    'the first harvests are purged',
    async () => ((await app.api.get('/data.json')).body as Catalog).dataset.length === 0,
    600_000,
  );
  const run = await harvest('roundtrip', `${files.url}/export.json`);
  t.like(run, { status: 'succeeded', created: first.dataset.length, failed: 0 });
  const again = ((await app.api.get('/data.json')).body as Catalog).dataset;
  t.is(again.length, first.dataset.length, 'each dataset once, from the export');
  const byId = new Map(first.dataset.map((d) => [d.identifier, d]));
  let differing = 0;
  for (const d of again) {
    const before = byId.get(d.identifier);
    if (isDeepStrictEqual(d, before)) continue;
    differing += 1;
    if (differing <= 3) t.log(`${d.identifier} differs:\n${JSON.stringify(before)}\n${JSON.stringify(d)}`);
  }
  t.is(differing, 0, 'every dataset of the second harvest is written out as the first was');
});
