import test from 'ava';
import { startTestApp, until, type TestApp } from '../helpers/app.ts';
import { ckanGet, resultOf } from '../helpers/ckan.ts';
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

async function harvestAll() {
  const created = await harvester.api.post(
    '/api/v1/admin/harvest-sources',
    { name: 'other-almanac', type: 'ckan', url: `${source.url}/api/3/action` },
    harvester.sysadmin,
  );
  if (created.status !== 201) throw new Error(created.text);
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
  return { sourceId: created.body.id as string, run };
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
});
