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
  const differences: Record<string, unknown> = {};
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
      // The source's node is its IRI (a remote id may be its dct:identifier instead).
      const sourceIri = dataset.harvest.remoteUrl ?? dataset.harvest.remoteId;
      const result = await python('dcat_roundtrip.py', [
        'compare',
        sourceFile,
        sourceIri,
        await tempFile('served.ttl', served.text),
        `${app.url}/dataset/${dataset.id}`,
      ]);
      t.true(result.described > 0, `${file} ${sourceIri}: the source describes it`);
      // Every difference of every example at once: one run says all that is left.
      if (result.missing.length || result.added.length) differences[`${file} ${sourceIri}`] = result;
      compared += 1;
    }
  }
  t.deepEqual(differences, {});
  t.log(`${compared} datasets compared`);
  t.true(compared >= 20);
});

const FULL_RECORD = {
  temporal: [
    { start: '2020-01-01', end: '2022-12-31T23:59:59Z' },
    { start: '2019', end: '2019-06' },
  ],
  spatial: [
    { uri: 'https://sws.geonames.org/390903/', name: 'Greece', bbox: [19.3, 34.8, 29.7, 41.8], centroid: [22.0, 39.0] },
    { geometry: { type: 'Point', coordinates: [23.7, 37.9] }, bbox: [23.7, 37.9, 23.7, 37.9], centroid: [23.7, 37.9] },
  ],
  accrualPeriodicity: 'ANNUAL',
  language: ['http://publications.europa.eu/resource/authority/language/ENG', 'el'],
  theme: [{ uri: 'http://publications.europa.eu/resource/authority/data-theme/ENVI', label: 'Environment' }],
  publisher: {
    name: 'Greek Environment Agency',
    uri: 'https://agencies.gov.gr/id/GreekEnvironmentAgency',
    email: 'info@ea.gov.gr',
    type: 'http://purl.org/adms/publishertype/NationalAuthority',
  },
  contactPoint: [{ name: 'Data desk', email: 'data@ea.gov.gr', url: 'https://ea.gov.gr/contact', phone: '+30 210 000 0000' }],
  creator: { name: 'Bee survey team', url: 'https://ea.gov.gr/bees', type: 'http://purl.org/adms/publishertype/NationalAuthority' },
  accessRights: { uri: 'http://publications.europa.eu/resource/authority/access-right/PUBLIC' },
  rights: 'Free to reuse with attribution.',
  issued: '2023-03-21',
  modified: '2023-06-01T10:00:00Z',
  conformsTo: ['https://example.org/schema/bee-counts'],
  documentation: ['https://ea.gov.gr/bees/about'],
  identifier: 'bee-population-full',
  otherIdentifiers: [{ notation: 'EA-BEE-1', scheme: 'https://ea.gov.gr/ids' }],
  isPartOf: ['https://data.gov.gr/id/datasetseries/BeePopulation'],
  versionNotes: 'First full release.',
  type: { uri: 'http://publications.europa.eu/resource/authority/dataset-type/STATISTICAL', label: 'Statistical' },
  status: { uri: 'http://publications.europa.eu/resource/authority/dataset-status/COMPLETED', label: 'Completed' },
  provenance: ['Counted by volunteers at 120 hives.'],
  relation: ['https://ea.gov.gr/bees/report'],
  isReferencedBy: ['https://doi.org/10.1234/bees'],
  wasGeneratedBy: ['https://ea.gov.gr/activities/bee-survey-2023'],
  qualifiedRelation: [
    { relation: 'https://data.gov.gr/id/datasetseries/HoneyProduction', role: 'http://www.iana.org/assignments/relation/related' },
  ],
  relatedResources: [
    {
      uri: 'https://data.gov.gr/id/datasetseries/BeePopulation',
      class: 'DatasetSeries',
      title: 'Bee population',
      description: 'The bee population of Greece, a dataset a year',
      publisher: { name: 'Greek Environment Agency', uri: 'https://agencies.gov.gr/id/GreekEnvironmentAgency' },
      contactPoint: { name: 'Data desk', email: 'data@ea.gov.gr' },
    },
    {
      uri: 'https://data.gov.gr/id/datasetseries/HoneyProduction',
      class: 'DatasetSeries',
      title: 'Honey production',
      description: 'Honey produced in Greece, a dataset a year',
      publisher: { name: 'Greek Environment Agency', uri: 'https://agencies.gov.gr/id/GreekEnvironmentAgency' },
      contactPoint: { name: 'Data desk', email: 'data@ea.gov.gr' },
    },
  ],
  qualifiedAttribution: [
    {
      agent: {
        name: 'University of Athens',
        uri: 'https://uoa.gr',
        type: 'http://purl.org/adms/publishertype/Academia-ScientificOrganisation',
      },
      role: 'http://registry.it.csiro.au/def/isotc211/CI_RoleCode/contributor',
    },
  ],
  applicableLegislation: ['http://data.europa.eu/eli/reg_impl/2023/138/oj'],
  temporalResolution: 'P1D',
  spatialResolutionInMeters: 1000,
};
const FULL_DISTRIBUTION = {
  url: 'https://ea.gov.gr/bees/2023.csv',
  name: 'Bee counts (CSV)',
  description: 'Every count of 2023',
  format: 'CSV',
  mimetype: 'text/csv',
  accessUrl: 'https://ea.gov.gr/bees/download',
  downloadUrl: 'https://ea.gov.gr/bees/2023.csv',
  byteSize: 123456,
  checksum: { algorithm: 'sha256', value: 'a'.repeat(64) },
  license: 'http://publications.europa.eu/resource/authority/licence/CC_BY_4_0',
  rights: 'Attribution required.',
  conformsTo: ['https://example.org/schema/bee-counts'],
  issued: '2023-03-21',
  modified: '2023-06-01',
  language: ['http://publications.europa.eu/resource/authority/language/ENG'],
  temporalResolution: 'P1D',
  spatialResolutionInMeters: 1000,
  formatUri: 'http://publications.europa.eu/resource/authority/file-type/CSV',
  compressFormat: 'application/gzip',
  packageFormat: 'application/zip',
  availability: 'http://data.europa.eu/r5r/availability/stable',
  status: { uri: 'http://publications.europa.eu/resource/authority/distribution-status/COMPLETED', label: 'Completed' },
  documentation: ['https://ea.gov.gr/bees/csv-guide'],
  applicableLegislation: ['http://data.europa.eu/eli/reg_impl/2023/138/oj'],
  hasPolicy: 'https://ea.gov.gr/policies/open',
};

test.serial(
  'a record with every property the shapes name, served: 0 violations (mandatory, range), 0 warnings (recommended)',
  async (t) => {
    const org = await app.api.post('/api/v1/organizations', { name: 'full-record', title: 'Full record' }, app.sysadmin);
    t.is(org.status, 201, org.text);
    const created = await app.api.post(
      '/api/v1/packages',
      {
        name: 'bee-population-full',
        title: 'Bee population',
        notes: 'A dataset about bee population in Greece',
        ownerOrg: 'full-record',
        licenseId: 'cc-by',
        tags: ['bees'],
        url: 'https://ea.gov.gr/bees',
        version: '1.0',
        ...FULL_RECORD,
        resources: [FULL_DISTRIBUTION],
      },
      app.sysadmin,
    );
    t.is(created.status, 201, created.text);
    const served = await app.api.get(`/dataset/${created.body.id}.ttl`);
    t.is(served.status, 200, served.text);
    const file = await tempFile('full.ttl', served.text);
    for (const [shapes, severity] of [
      ['SHACL', 'violations'],
      ['range', 'violations'],
      ['shapes_recommended', 'warnings'],
    ] as const) {
      const result = await python('rdf_tools.py', ['shacl', file, SHAPES(shapes)]);
      t.is(result[severity], 0, `${shapes}: ${result.report}`);
      t.is(result.violations, 0, `${shapes}: ${result.report}`);
    }
    // Every key of the record is in the document: a writer that wrote nothing would fail here.
    for (const text of [
      'dcat:startDate',
      'dcat:bbox',
      'locn:geometry',
      'dct:accrualPeriodicity',
      'prov:qualifiedAttribution',
      'dcat:qualifiedRelation',
      'spdx:checksum',
      'odrl:hasPolicy',
      'dcat:compressFormat',
      'dcatap:applicableLegislation',
      'adms:versionNotes',
      'dct:provenance',
    ]) {
      t.true(served.text.includes(text.split(':')[1]!), `${text} is served`);
    }
  },
);

test.serial(
  'a detached harvested dataset is its editors’: its edited title is served, and the source’s raw triples (now editable extras) no longer are',
  async (t) => {
    const list = await app.api.get(`/api/v1/packages?limit=100&private=true`, app.sysadmin);
    const found = (list.body.results as Array<{ id: string }>).map((d) => d.id);
    let dataset: Record<string, any> | undefined;
    for (const id of found) {
      const detail = (await app.api.get(`/api/v1/packages/${id}`, app.sysadmin)).body;
      if (detail.harvest?.remoteId === 'https://data.gov.gr/id/dataset/BeePopulation2022') dataset = detail;
    }
    if (!dataset) return t.fail('the examples test harvested BeePopulation2022');
    const before = await app.api.get(`/dataset/${dataset.id}.ttl`);
    t.true(before.text.includes('"Bee population 2022"@en'), before.text);
    // A harvested dataset is the source's to change: detached (its source deleted, no purge), it is ours to edit.
    const detached = await app.api.delete(`/api/v1/admin/harvest-sources/${dataset.harvest.sourceId}`, app.sysadmin);
    t.is(detached.status, 204, detached.text);
    const put = await app.api.put(
      `/api/v1/packages/${dataset.id}`,
      {
        name: dataset.name,
        title: 'Bee population, revised',
        notes: dataset.notes,
        ownerOrg: dataset.organization.name,
        licenseId: dataset.licenseId,
        extras: dataset.extras,
      },
      app.sysadmin,
    );
    t.is(put.status, 200, put.text);
    const after = await app.api.get(`/dataset/${dataset.id}.ttl`);
    t.true(after.text.includes('"Bee population, revised"'), after.text);
    t.false(after.text.includes('"Bee population 2022"@en'), after.text);
    // Extras anyone may now edit are never triples in the site's feeds: the record's plain description is served.
    t.false(after.text.includes('"A dataset about bee population in Greece in 2022"@en'), after.text);
    t.true(after.text.includes(`"${dataset.notes}"`), after.text);
  },
);
