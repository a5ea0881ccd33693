import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ckanGet, resultOf } from '../helpers/ckan.ts';
import {
  CUSTOM_EXTRAS,
  CUSTOM_FIELDS,
  DISTRIBUTION,
  DISTRIBUTION_CKAN,
  EXTRAS,
  PROFILE,
  RECORD,
  RECORD_CKAN_NAMES,
} from '../helpers/metadata-record.ts';

/**
 * Issue 28 §2: CKAN's package_show, package_search and resource_show carry the metadata record, extras
 * and profile fields as a scheming site does: the record's keys top-level under their CKAN names (unset
 * ones absent), `extras` as [{key, value}] byte for byte and in order, profile fields top-level, resource
 * extras flattened into the resource dict.
 */

let app: TestApp;
let fullId: string;
let resourceId: string;

test.before(async () => {
  app = await startTestApp();
  const admin = app.sysadmin;
  const org = await app.api.post('/api/v1/organizations', { name: 'stats-office', title: 'Stats office' }, admin);
  if (org.status !== 201) throw new Error(org.text);
  // `rights` as a profile field too: the record's `rights` must keep its place in the dict.
  const profile = await app.api.put(
    '/api/v1/admin/profiles/site',
    { ...PROFILE, datasetFields: [...PROFILE.datasetFields, { name: 'rights', type: 'text', label: 'Rights (local)' }] },
    admin,
  );
  if (profile.status !== 201) throw new Error(profile.text);
  const full = await app.api.post(
    '/api/v1/packages',
    {
      name: 'full-record',
      title: 'Full record',
      ownerOrg: 'stats-office',
      licenseId: 'cc-by',
      ...RECORD,
      extras: EXTRAS,
      customFields: { ...CUSTOM_FIELDS, rights: 'the profile’s own rights text' },
      resources: [
        {
          url: 'https://example.org/data.csv',
          name: 'data',
          format: 'CSV',
          ...DISTRIBUTION,
          customExtras: CUSTOM_EXTRAS,
          customFields: { granularity: 'daily' },
        },
      ],
    },
    admin,
  );
  if (full.status !== 201) throw new Error(full.text);
  fullId = full.body.id;
  resourceId = full.body.resources[0].id;
  const bare = await app.api.post('/api/v1/packages', { name: 'bare-record', ownerOrg: 'stats-office', licenseId: 'cc-by' }, admin);
  if (bare.status !== 201) throw new Error(bare.text);
});
test.after.always(async () => app?.stop());

test('package_show gives every record key that is set top-level under its CKAN name, with the value as written', async (t) => {
  const pkg = resultOf(await ckanGet(app.api, 'package_show', { id: 'full-record' }));
  for (const [key, ckanName] of Object.entries(RECORD_CKAN_NAMES)) {
    t.deepEqual(pkg[ckanName], RECORD[key as keyof typeof RECORD], `${key} as ${ckanName}`);
  }
  t.false('temporal' in pkg || 'contactPoint' in pkg, 'REST names are not CKAN keys');
});

test('package_show gives the extras as CKAN’s [{key, value}], byte for byte and in order', async (t) => {
  const pkg = resultOf(await ckanGet(app.api, 'package_show', { id: 'full-record' }));
  t.deepEqual(pkg.extras, EXTRAS);
});

test('profile fields are top-level as ckanext-scheming gives them; one named like a core key does not displace it', async (t) => {
  const pkg = resultOf(await ckanGet(app.api, 'package_show', { id: 'full-record' }));
  for (const [key, value] of Object.entries(CUSTOM_FIELDS)) t.deepEqual(pkg[key], value, key);
  t.is(pkg.rights, RECORD.rights);
  t.false('customFields' in pkg);
  const rest = await app.api.get(`/api/v1/packages/${fullId}`, app.sysadmin);
  t.is(rest.body.customFields.rights, 'the profile’s own rights text', 'REST still holds it');
});

test('a dataset with no record has none of its keys, and empty extras, as a scheming site leaves unfilled fields out', async (t) => {
  const pkg = resultOf(await ckanGet(app.api, 'package_show', { id: 'bare-record' }));
  for (const ckanName of Object.values(RECORD_CKAN_NAMES)) t.false(ckanName in pkg, ckanName);
  for (const key of Object.keys(CUSTOM_FIELDS)) t.false(key in pkg, key);
  t.deepEqual(pkg.extras, []);
});

test('package_search gives the same dict as package_show', async (t) => {
  const shown = resultOf(await ckanGet(app.api, 'package_show', { id: 'full-record' }));
  const found = resultOf(await ckanGet(app.api, 'package_search', { q: 'name:full-record' }));
  t.is(found.count, 1);
  t.deepEqual(found.results[0], shown);
});

test('resource_show and the package’s resources give the distribution record, profile fields and resource extras top-level', async (t) => {
  const res = resultOf(await ckanGet(app.api, 'resource_show', { id: resourceId }));
  t.like(res, DISTRIBUTION_CKAN);
  t.is(res.granularity, 'daily');
  for (const { key, value } of CUSTOM_EXTRAS) t.is(res[key], value, key);
  t.false('customExtras' in res || 'accessUrl' in res);
  const pkg = resultOf(await ckanGet(app.api, 'package_show', { id: 'full-record' }));
  t.deepEqual(pkg.resources[0], res);
});
