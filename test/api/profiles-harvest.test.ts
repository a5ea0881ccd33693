import test from 'ava';
import { applyHarvestPage } from '../../src/domain/harvest/apply.ts';
import type { HarvestSource } from '../../src/entities/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { domainContext, harvestRecord, makeRun, makeSource } from '../helpers/harvest-domain.ts';

/**
 * Issue 28 §1, metadata profiles in harvesting: a harvested value the organization's profile would
 * refuse is not lost but moved to the extras under its field name; a required field the source lacks
 * does not refuse the record (the source is the authority on what it published).
 */

let app: TestApp;
let source: HarvestSource;

test.before(async () => {
  app = await startTestApp();
  await app.api.post('/api/v1/organizations', { name: 'ph-org' }, app.sysadmin);
  const put = await app.api.put(
    '/api/v1/admin/profiles/organizations/ph-org',
    {
      datasetFields: [
        { name: 'region', type: 'choice', label: 'Region', required: true, choices: [{ value: 'north' }, { value: 'south' }] },
        { name: 'population', type: 'integer', label: 'Population' },
        { name: 'codes', type: 'list', label: 'Codes' },
      ],
    },
    app.sysadmin,
  );
  if (put.status !== 201) throw new Error(put.text);
  source = await makeSource(app, { name: 'ph-source', organization: 'ph-org' });
});
test.after.always(async () => app?.stop());

const show = (name: string) => app.api.get(`/api/v1/packages/${name}`, app.sysadmin);

test('a harvested value the profile refuses goes to the extras as its source wrote it; the fitting ones stay', async (t) => {
  const run = await makeRun(app, source);
  const record = harvestRecord('ph-misfit', {
    customFields: { region: 'east', population: 3, codes: [1, 2], unknown_field: 'x', spec: { a: 1 } },
    extras: [{ key: 'origin', value: 'agency' }],
  });
  const [outcome] = await applyHarvestPage(domainContext(app), source, run, [{ kind: 'record', record }]);
  t.is(outcome, 'created');
  const d = (await show('ph-misfit')).body;
  t.deepEqual(d.customFields, { population: 3 });
  t.deepEqual(d.extras, [
    { key: 'origin', value: 'agency' },
    { key: 'region', value: 'east' },
    { key: 'codes', value: '[1,2]' },
    { key: 'unknown_field', value: 'x' },
    { key: 'spec', value: '{"a":1}' },
  ]);
});

test('a harvested record without a required profile field is still created, active', async (t) => {
  const run = await makeRun(app, source);
  const [outcome] = await applyHarvestPage(domainContext(app), source, run, [{ kind: 'record', record: harvestRecord('ph-bare') }]);
  t.is(outcome, 'created');
  const d = (await show('ph-bare')).body;
  t.is(d.state, 'active');
  t.deepEqual(d.customFields, {});
});
