import fs from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { startTestApp, until, type TestApp } from '../helpers/app.ts';
import { python, tempFile } from '../helpers/feed-fixtures.ts';
import { startFileServer } from '../helpers/file-server.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';

/**
 * Issue 28, "Done when" 2: the DCAT-AP 3 examples (../shared/data/dcat-ap/examples/) harvested and
 * re-served, each dataset's description (and its distributions') isomorphic to the source's as rdflib
 * compares them (test/helpers/dcat_roundtrip.py says what Almanac adds of its own); and a record with every
 * property the shapes name, created through REST, served with 0 violations of the mandatory and range
 * shapes and 0 warnings of the recommended ones (pySHACL).
 */
const DIR = path.join(SHARED_DATA, 'dcat-ap/examples');
const SHAPES = (name: string) => path.join(SHARED_DATA, `dcat-ap/dcat-ap-3.0.0-${name}.ttl`);
/** Not Turtle as published: a `/` in a prefixed name's local part, which rdflib refuses too. */
const NOT_TURTLE = ['example-bee-population-dataset-series-api.ttl', 'example-bee-population-dataset-series-combined.ttl'];

let app: TestApp;
let files: Awaited<ReturnType<typeof startFileServer>>;
let examples: string[];

test.before(async () => {
  examples = (await fs.readdir(DIR)).filter((f) => f.endsWith('.ttl')).sort();
  const served: Record<string, (req: unknown, res: import('node:http').ServerResponse) => void> = {};
  for (const file of examples) {
    const body = await fs.readFile(path.join(DIR, file));
    served[`/${file}`] = (_req, res) => void res.writeHead(200, { 'content-type': 'text/turtle' }).end(body);
  }
  [app, files] = await Promise.all([startTestApp(), startFileServer(served)]);
});
test.after.always(async () => {
  await files?.close();
  await app?.stop();
});

async function harvest(name: string, url: string) {
  const org = await app.api.post('/api/v1/organizations', { name, title: name }, app.sysadmin);
  if (org.status !== 201) throw new Error(org.text);
  const source = await app.api.post('/api/v1/admin/harvest-sources', { name, type: 'dcat-ap', url, organization: name }, app.sysadmin);
  if (source.status !== 201) throw new Error(source.text);
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
  return { run: lastRun, sourceId: source.body.id as string };
}

test.serial('every DCAT-AP example harvested and re-served: each dataset and distribution isomorphic to its source', async (t) => {
  t.timeout(1_200_000);
  t.true(examples.length >= 13, examples.join(', '));
  let compared = 0;
  for (const [i, file] of examples.entries()) {
    const { run, sourceId } = await harvest(`dcat-ap-example-${i}`, `${files.url}/${file}`);
    if (NOT_TURTLE.includes(file)) {
      t.is(run.status, 'failed', `${file}: ${JSON.stringify(run)}`);
      continue;
    }
    t.is(run.status, 'succeeded', `${file}: ${JSON.stringify(run)}`);
    t.is(run.failed, 0, `${file}: ${JSON.stringify(run.errors)}`);
    const list = await app.api.get(`/api/v1/packages?limit=100&private=true`, app.sysadmin);
    const mine = [];
    for (const d of list.body.results as Array<{ id: string }>) {
      const detail = (await app.api.get(`/api/v1/packages/${d.id}`, app.sysadmin)).body;
      if (detail.harvest?.sourceId === sourceId) mine.push(detail);
    }
    t.true(mine.length > 0, file);
    const sourceFile = path.join(DIR, file);
    for (const dataset of mine) {
      const served = await app.api.get(`/dataset/${dataset.id}.ttl`);
      t.is(served.status, 200, served.text);
      const result = await python('dcat_roundtrip.py', [
        'compare',
        sourceFile,
        dataset.harvest.remoteId,
        await tempFile('served.ttl', served.text),
        `${app.url}/dataset/${dataset.id}`,
      ]);
      t.deepEqual(result.missing, [], `${file} ${dataset.harvest.remoteId}: not served`);
      t.deepEqual(result.added, [], `${file} ${dataset.harvest.remoteId}: added`);
      compared += 1;
    }
  }
  t.log(`${compared} datasets compared`);
  t.true(compared >= 20);
});
