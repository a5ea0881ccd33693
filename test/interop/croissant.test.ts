import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { loadFeedFixtures, python, tempFile, type FeedFixtures } from '../helpers/feed-fixtures.ts';
import { RECORD } from '../helpers/metadata-record.ts';

/**
 * Issue 17 §2: `GET /dataset/{nameOrId}/croissant.jsonld` is Croissant 1.0 that mlcroissant (MLCommons'
 * reference implementation, from PyPI) loads without a validation error, with a RecordSet per queryable
 * resource whose fields are that resource's column schema.
 */

let app: TestApp;
let fx: FeedFixtures;

test.before(async () => {
  app = await startTestApp();
  fx = await loadFeedFixtures(app, 'cr');
});
test.after.always(async () => app?.stop());

const SC = 'https://schema.org/';
/** The column types of the pipeline's schema record, as Croissant names them. */
const EXPECTED_TYPE: Record<string, string> = {
  integer: `${SC}Integer`,
  float: `${SC}Float`,
  boolean: `${SC}Boolean`,
  string: `${SC}Text`,
};

async function croissantOf(nameOrId: string) {
  const reply = await app.api.get(`/dataset/${nameOrId}/croissant.jsonld`);
  if (reply.status !== 200) throw new Error(`croissant of ${nameOrId}: ${reply.status} ${reply.text}`);
  return reply;
}

/** mlcroissant's reading of the served file (see test/helpers/croissant_check.py). */
const mlcroissant = async (text: string, ...recordSets: string[]) =>
  python('croissant_check.py', [await tempFile('croissant.jsonld', text), ...recordSets]);

test('the Croissant of a dataset with a queryable CSV passes mlcroissant validation as Croissant 1.0', async (t) => {
  const reply = await croissantOf(fx.public.table.name);
  t.is(reply.headers.get('content-type'), 'application/ld+json');
  t.is(reply.body.conformsTo, 'http://mlcommons.org/croissant/1.0');
  t.is(reply.body['@context']['@vocab'], SC);
  const read = await mlcroissant(reply.text);
  t.true(read.valid, read.errors);
  t.is(read.name, 'Station readings table');
  t.is(read.conformsTo, 'http://mlcommons.org/croissant/1.0');
  t.deepEqual(read.warnings, [], read.warnings.join('\n'));
});

test('the RecordSet of the queryable resource has one field per column of its schema, typed from it', async (t) => {
  const resource = (await app.api.get(`/api/v1/resources/${fx.public.table.uploadId}`)).body;
  const columns = resource.extras.preview.schema.columns as Array<{ name: string; type: string }>;
  t.deepEqual(
    columns.map((c) => c.name),
    ['station', 'reading', 'calibrated', 'label'],
  );
  const read = await mlcroissant((await croissantOf(fx.public.table.id)).text);
  t.is(read.recordSets.length, 1, 'the link is not queryable: one RecordSet');
  t.deepEqual(
    read.recordSets[0].fields,
    columns.map((c) => ({ name: c.name, dataTypes: [EXPECTED_TYPE[c.type]], column: c.name })),
  );
  t.deepEqual(
    columns.map((c) => c.type),
    ['integer', 'float', 'boolean', 'string'],
  );
});

test('the FileObject is the upload: its download URL, media type and sha256, and mlcroissant reads its rows', async (t) => {
  const resource = (await app.api.get(`/api/v1/resources/${fx.public.table.uploadId}`)).body;
  const reply = await croissantOf(fx.public.table.name);
  const recordSet = reply.body.recordSet[0]['@id'];
  const read = await mlcroissant(reply.text, recordSet);
  t.deepEqual(read.files, [{ id: `file-${resource.id}`, contentUrl: resource.url, sha256: resource.hash, encodingFormat: ['text/csv'] }]);
  // mlcroissant downloads the file from the service, checks its sha256 and parses it as the fields say.
  t.deepEqual(
    read.records[recordSet].map((r: Record<string, unknown>) => [r.station, r.reading, r.calibrated, r.label]),
    [
      [1, 0.5, true, 'north'],
      [2, 1.25, false, 'south'],
      [3, 2.75, true, 'east'],
    ],
  );
});

test('a dataset with links only is valid Croissant without files or record sets (a link has no checksum)', async (t) => {
  const reply = await croissantOf(fx.public.rich.name);
  t.deepEqual(reply.body.distribution, []);
  t.deepEqual(reply.body.recordSet, []);
  const read = await mlcroissant(reply.text);
  t.true(read.valid, read.errors);
  t.is(read.name, 'Air quality "PM2.5" readings <hourly> & daily');
});

test('a dataset without a version gets no invented one: mlcroissant only recommends it', async (t) => {
  const read = await mlcroissant((await croissantOf(fx.public.bare.name)).text);
  t.true(read.valid, read.errors);
  t.deepEqual(read.warnings, [
    `[Metadata(${fx.public.bare.name})] Property "https://schema.org/version" is recommended, but does not exist.`,
  ]);
});

test('mlcroissant refuses what is not valid Croissant: the same file without its FileObject sha256', async (t) => {
  // The validation above can fail: without a checksum a FileObject of a non-live dataset is an error.
  const body = (await croissantOf(fx.public.table.name)).body;
  delete body.distribution[0].sha256;
  const read = await mlcroissant(JSON.stringify(body));
  t.false(read.valid);
  t.regex(read.errors, /sha256|md5/);
});

test('a dataset with the full record (coverage, publisher, languages, themes) is valid Croissant, with no new warning', async (t) => {
  const made = await app.api.post(
    '/api/v1/packages',
    { name: 'cr-record', title: 'With a record', version: '1.0', ownerOrg: fx.org.name, licenseId: 'cc-by-4.0', ...RECORD },
    app.sysadmin,
  );
  t.is(made.status, 201, made.text);
  const reply = await croissantOf('cr-record');
  t.truthy(reply.body.spatialCoverage && reply.body.temporalCoverage && reply.body.inLanguage);
  const read = await mlcroissant(reply.text);
  t.true(read.valid, read.errors);
  t.deepEqual(read.warnings, [], read.warnings.join('\n'));
});
