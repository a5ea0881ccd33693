import test from 'ava';
import { startTestApp, until, type TestApp } from '../helpers/app.ts';
import { ckanGet, resultOf } from '../helpers/ckan.ts';
import { startFileServer } from '../helpers/file-server.ts';
import { CUSTOM_EXTRAS, CUSTOM_FIELDS, DISTRIBUTION, EXTRAS, PROFILE, RECORD } from '../helpers/metadata-record.ts';

/**
 * Issue 28, Done when: one instance harvests another through the CKAN API, and package_show on both gives
 * the same core fields, extras and profile fields. Both sites have the same profile, as two scheming
 * sites of one network would.
 */

let source: TestApp;
let harvester: TestApp;

const NAMES = ['full-record', 'partial-record'];

test.before(async () => {
  [source, harvester] = await Promise.all([startTestApp(), startTestApp()]);
  for (const app of [source, harvester]) {
    const profile = await app.api.put('/api/v1/admin/profiles/site', PROFILE, app.sysadmin);
    if (profile.status !== 201) throw new Error(profile.text);
  }
  const org = await source.api.post('/api/v1/organizations', { name: 'stats-office', title: 'Stats office' }, source.sysadmin);
  if (org.status !== 201) throw new Error(org.text);
  const bodies = [
    {
      name: 'full-record',
      title: 'Full record',
      notes: 'Every field.',
      author: 'Ann',
      version: '2.1',
      url: 'https://example.org/landing',
      tags: ['water', 'levels'],
      ...RECORD,
      extras: EXTRAS,
      customFields: CUSTOM_FIELDS,
      resources: [
        { url: 'https://example.org/data.csv', name: 'data', format: 'CSV', ...DISTRIBUTION, customExtras: CUSTOM_EXTRAS },
        { url: 'https://example.org/profiled.json', name: 'profiled', format: 'JSON', customFields: { granularity: 'monthly' } },
      ],
    },
    { name: 'partial-record', title: 'Some of it', temporal: [{ end: '1999' }], extras: [{ key: 'only', value: 'one' }] },
  ];
  for (const body of bodies) {
    const reply = await source.api.post('/api/v1/packages', { ownerOrg: 'stats-office', licenseId: 'cc-by', ...body }, source.sysadmin);
    if (reply.status !== 201) throw new Error(reply.text);
  }
});
test.after.always(async () => {
  await harvester?.stop();
  await source?.stop();
});

async function harvestAll(name = 'other-almanac', url = `${source.url}/api/3/action`) {
  const created = await harvester.api.post('/api/v1/admin/harvest-sources', { name, type: 'ckan', url }, harvester.sysadmin);
  if (created.status !== 201) throw new Error(created.text);
  return { sourceId: created.body.id as string, run: await runToEnd(created.body.id) };
}

async function runToEnd(sourceId: string) {
  const created = { body: { id: sourceId } };
  const started = await harvester.api.post(`/api/v1/admin/harvest-sources/${created.body.id}/run`, undefined, harvester.sysadmin);
  if (started.status !== 202) throw new Error(started.text);
  let run: Record<string, unknown> = {};
  await until(
    'the harvest run ends',
    async () => {
      const reply = await harvester.api.get(`/api/v1/admin/harvest-sources/${created.body.id}`, harvester.sysadmin);
      run = reply.body.lastRun ?? {};
      return run.runId === started.body.runId && run.status !== 'running';
    },
    120_000,
  );
  return run;
}

/**
 * What a harvest cannot carry over, and why: ids are each site's own (the package's, its resources',
 * its organization's and creator's), and so are the times Almanac sets (created, modified: the harvester
 * keeps the source's `modified` in the record, and its own for when it changed here). `extras` is
 * compared apart: the harvester adds its provenance after the source's pairs.
 */
const SITE_OWN = new Set([
  'id',
  'owner_org',
  'creator_user_id',
  'metadata_created',
  'metadata_modified',
  'package_id',
  'created',
  'last_modified',
  'extras',
]);

function withoutSiteOwn(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSiteOwn);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (SITE_OWN.has(k) ? [] : [[k, withoutSiteOwn(v)]])));
  }
  return value;
}

test.serial('package_show on both sites gives the same core fields, record, extras and profile fields', async (t) => {
  const { sourceId, run } = await harvestAll();
  t.like(run, { status: 'succeeded', created: NAMES.length, failed: 0 });

  for (const name of NAMES) {
    const there = resultOf(await ckanGet(source.api, 'package_show', { id: name }));
    const here = resultOf(await ckanGet(harvester.api, 'package_show', { id: name }));
    t.deepEqual(withoutSiteOwn(here), withoutSiteOwn(there), name);
    // The source's pairs first, byte for byte and in order; then where the harvester got it.
    t.deepEqual(here.extras.slice(0, there.extras.length), there.extras, `${name}: extras`);
    t.deepEqual(
      here.extras.slice(there.extras.length).map((e: { key: string }) => e.key),
      ['harvest_source_id', 'harvest_remote_id', 'harvest_remote_url', 'harvested_at'],
    );
    t.is(here.extras.find((e: { key: string }) => e.key === 'harvest_source_id').value, sourceId);
  }
  const full = resultOf(await ckanGet(harvester.api, 'package_show', { id: 'full-record' }));
  t.deepEqual(full.extras.slice(0, EXTRAS.length), EXTRAS);
  for (const [key, value] of Object.entries(CUSTOM_FIELDS)) t.deepEqual(full[key], value, key);
  t.deepEqual(full.temporal_coverage, RECORD.temporal);
  t.deepEqual(full.spatial_coverage, RECORD.spatial);

  // Over REST, the harvester holds them where they belong: the record, the extras, the profile values.
  const rest = await harvester.api.get(`/api/v1/packages/${full.id}`, harvester.sysadmin);
  t.like(rest.body, { publisher: RECORD.publisher, bureauCode: RECORD.bureauCode, customFields: CUSTOM_FIELDS });
  t.like(rest.body.resources[0], { accessUrl: DISTRIBUTION.accessUrl, customExtras: CUSTOM_EXTRAS });
  // A resource's profile value comes as a flattened key and is kept as a resource extra: same dict, other place.
  t.deepEqual(rest.body.resources[1].customExtras, [{ key: 'granularity', value: 'monthly' }]);

  // Nothing changed at the source: the next run finds the same records and changes none.
  t.like(await runToEnd(sourceId), { status: 'succeeded', created: 0, updated: 0, failed: 0 });
});

/** A package dict as a ckanext-dcat scheming site and data.gov's CKAN give one: shapes Almanac's record does not take as they are. */
const SCHEMING_DICT = {
  id: 'c0ffee00-0000-4000-8000-000000000001',
  name: 'berlin-air',
  title: 'Berlin air',
  license_id: 'cc-by',
  organization: { name: 'senate-berlin', title: 'Senate of Berlin' },
  temporal_coverage: [{ start: '2020-01-01', end: '2020-12-31' }],
  spatial_coverage: [
    {
      uri: 'https://sws.geonames.org/2950159/',
      text: 'Berlin',
      geom: '{"type": "Point", "coordinates": [13.4, 52.5]}',
      bbox: '{"type": "Polygon", "coordinates": [[[13.1, 52.3], [13.8, 52.3], [13.8, 52.7], [13.1, 52.7], [13.1, 52.3]]]}',
    },
    { text: 'Somewhere', name: 'Two names' },
  ],
  publisher: [{ name: 'Senate of Berlin', uri: 'https://berlin.de/sen' }],
  creator: [{ name: 'Air lab', identifier: 'LAB-1' }],
  contact: [{ name: 'Air desk', email: 'air@berlin.de' }],
  bureau_code: ['015:11'],
  region: 'south',
  station_type: 'urban background',
  sensors: [{ id: 1, kind: 'PM10' }],
  extras: [
    { key: 'programCode', value: '["015:001"]' },
    { key: 'harvest_object_id', value: 'from its own harvester' },
    { key: 'collection_date', value: '2020' },
  ],
  resources: [
    { id: 'r1', url: 'https://berlin.de/air.csv', name: 'Air', format: 'CSV', access_url: 'https://berlin.de/air', sensor_count: 12 },
  ],
};

/** The same site's dataset whose one place fits the record once read from ckanext-dcat's texts. */
const PLACED_DICT = {
  id: 'c0ffee00-0000-4000-8000-000000000002',
  name: 'berlin-water',
  title: 'Berlin water',
  license_id: 'cc-by',
  organization: SCHEMING_DICT.organization,
  spatial_coverage: [SCHEMING_DICT.spatial_coverage[0]],
};

test.serial('a scheming site’s dict comes in without loss: what fits to the record, the rest to extras and profile values', async (t) => {
  const site = await startFileServer({
    '/api/3/action/package_search': (req, res) => {
      const start = Number(new URL(req.url!, 'http://x').searchParams.get('start') ?? 0);
      const results = start === 0 ? [SCHEMING_DICT, PLACED_DICT] : [];
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true, result: { count: 1, results } }));
    },
  });
  try {
    const { run } = await harvestAll('scheming-site', site.url);
    t.like(run, { status: 'succeeded', created: 2, failed: 0 }, JSON.stringify(run));
    const rest = (await harvester.api.get('/api/v1/packages/berlin-air', harvester.sysadmin)).body;
    t.like(rest, {
      temporal: SCHEMING_DICT.temporal_coverage,
      contactPoint: SCHEMING_DICT.contact,
      bureauCode: SCHEMING_DICT.bureau_code,
      // ckanext-dcat's one-item agent list and GeoJSON texts, in the record's shapes.
      publisher: { name: 'Senate of Berlin', uri: 'https://berlin.de/sen' },
      creator: null,
      spatial: [],
    });
    // A scheming field the harvester's profile defines is a profile value; the others are extras.
    t.deepEqual(rest.customFields, { region: 'south' });
    // The source's extras in order (its harvester's provenance left out), then the values that did not fit, as JSON.
    t.deepEqual(rest.extras, [
      { key: 'programCode', value: '["015:001"]' },
      { key: 'collection_date', value: '2020' },
      // A place with two names, and an agent with a key the record has no place for: kept as written.
      { key: 'spatial', value: JSON.stringify(SCHEMING_DICT.spatial_coverage) },
      { key: 'creator', value: JSON.stringify(SCHEMING_DICT.creator) },
      { key: 'station_type', value: 'urban background' },
      { key: 'sensors', value: JSON.stringify(SCHEMING_DICT.sensors) },
    ]);
    t.like(rest.resources[0], { accessUrl: 'https://berlin.de/air', customExtras: [{ key: 'sensor_count', value: '12' }] });

    const placed = (await harvester.api.get('/api/v1/packages/berlin-water', harvester.sysadmin)).body;
    t.is(placed.spatial.length, 1);
    t.like(placed.spatial[0], {
      uri: 'https://sws.geonames.org/2950159/',
      name: 'Berlin',
      geometry: { type: 'Point', coordinates: [13.4, 52.5] },
      bbox: [13.1, 52.3, 13.8, 52.7],
    });
    t.deepEqual(placed.extras, []);
  } finally {
    await site.close();
  }
});
