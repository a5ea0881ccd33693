import test, { type ExecutionContext } from 'ava';
import { startTestAppWithPeople, type People, type TestApp } from '../helpers/app.ts';
import { as, type Auth } from '../helpers/client.ts';
import { groupWithMembers, ORGANIZATIONS } from '../helpers/groups.ts';
import { unique } from '../helpers/names.ts';

/**
 * Issue 28 §1 in the web form: the metadata profile's fields are inputs of the dataset form, judged by
 * the same rule as REST (the error shown at the field), and a profile change loses nothing on save.
 */

let app: TestApp;
let people: People<'editor'>;
let org: { name: string; id: string };
test.before(async (t) => {
  ({ app, people } = await startTestAppWithPeople('pform', ['editor']));
  org = await groupWithMembers(
    t as unknown as ExecutionContext,
    app,
    ORGANIZATIONS,
    { name: unique('pform-org') },
    { editor: people.editor },
  );
  const site = await app.api.put(
    '/api/v1/admin/profiles/site',
    {
      datasetFields: [
        {
          name: 'region',
          type: 'choice',
          label: 'Region',
          help: 'Where it was collected',
          required: true,
          choices: [
            { value: 'north', label: 'North' },
            { value: 'south', label: 'South' },
          ],
        },
        { name: 'population', type: 'integer', label: 'Population', min: 0 },
        { name: 'keywords', type: 'list', label: 'Keywords' },
      ],
    },
    app.sysadmin,
  );
  if (site.status !== 201) throw new Error(site.text);
  const own = await app.api.put(
    `/api/v1/admin/profiles/organizations/${org.name}`,
    { datasetFields: [{ name: 'projectCode', type: 'text', label: 'Project code', form: { placeholder: 'P-0000' } }] },
    app.sysadmin,
  );
  if (own.status !== 201) throw new Error(own.text);
});
test.after.always(async () => app?.stop());

const page = (path: string, auth: Auth = {}) => app.api.get(path, { ...auth, headers: { Accept: 'text/html', ...auth.headers } });

/** Posts a form as the editor's browser would: session cookie, CSRF token of a page, same origin. */
async function formPost(path: string, fields: Array<[string, string]>) {
  const form = await page('/dataset/new', { cookie: people.editor.cookie });
  const token = /name="_csrf" value="([^"]+)"/.exec(form.text)![1]!;
  const csrf = form.headers.get('set-cookie')?.split(';')[0];
  const cookie = [people.editor.cookie, csrf].filter(Boolean).join('; ');
  return fetch(app.url + path, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie, Origin: app.url },
    body: new URLSearchParams([['_csrf', token], ...fields]),
  });
}

test.serial('the new-dataset form shows the site profile’s fields with their labels, help and choices', async (t) => {
  const html = (await page('/dataset/new', { cookie: people.editor.cookie })).text;
  t.true(html.includes('<select id="customFields.region" name="customFields.region"'), html);
  t.true(html.includes('<option value="north">North</option>'));
  t.true(html.includes('Where it was collected'));
  t.true(html.includes('name="customFields.population" type="number" step="1" min="0"'));
  t.true(html.includes('<textarea id="customFields.keywords" name="customFields.keywords"'));
  t.false(html.includes('customFields.projectCode'), 'an organization’s fields wait for the organization');
});

test.serial('a value the profile refuses is shown at its field, as REST names it; a good one is saved', async (t) => {
  const name = unique('pform');
  const refused = await formPost('/dataset/new', [
    ['name', name],
    ['ownerOrg', org.name],
    ['customFields.population', 'many'],
    ['customFields.region', 'east'],
  ]);
  t.is(refused.status, 422);
  const html = await refused.text();
  t.regex(html, /<p class="field-error" id="customFields.population-error">must be a number<\/p>/);
  t.regex(html, /<p class="field-error" id="customFields.region-error">must be one of: north, south<\/p>/);
  t.true(html.includes('href="#customFields.region"'), 'the summary links to the field');
  t.true(html.includes('value="many"'), 'what was entered is shown again');

  const created = await formPost('/dataset/new', [
    ['name', name],
    ['ownerOrg', org.name],
    ['licenseId', 'cc-by-4.0'],
    ['customFields.region', 'north'],
    ['customFields.population', '12'],
    ['customFields.keywords', 'rivers\r\nlakes\r\n'],
  ]);
  t.is(created.status, 302, await created.text());
  const draft = await app.api.get(`/api/v1/packages/${name}?state=draft`, as(people.editor));
  t.deepEqual(draft.body.customFields, { region: 'north', population: 12, keywords: ['rivers', 'lakes'] });
});

test.serial('the edit form adds the organization’s fields; after a profile change saving keeps every value', async (t) => {
  const name = unique('pform-edit');
  const made = await app.api.post(
    '/api/v1/packages',
    {
      name,
      ownerOrg: org.name,
      licenseId: 'cc-by-4.0',
      rights: 'Kept through the form',
      extras: [{ key: 'note', value: 'kept' }],
      customFields: { region: 'north', population: 5, projectCode: 'P-1' },
    },
    as(people.editor),
  );
  t.is(made.status, 201, made.text);
  const edit = (await page(`/dataset/${name}/edit`, { cookie: people.editor.cookie })).text;
  t.true(edit.includes('name="customFields.projectCode" placeholder="P-0000" type="text" value="P-1"'), edit);

  // The site profile loses `population` and the choice `north`.
  const narrowed = await app.api.put(
    '/api/v1/admin/profiles/site',
    { datasetFields: [{ name: 'region', type: 'choice', label: 'Region', required: true, choices: [{ value: 'south' }] }] },
    app.sysadmin,
  );
  t.is(narrowed.status, 200, narrowed.text);
  const after = (await page(`/dataset/${name}/edit`, { cookie: people.editor.cookie })).text;
  t.true(after.includes('<option value="north" selected>north (no longer a choice)</option>'), after);
  t.regex(after, /<dt>population<\/dt><dd>5<\/dd>/);

  const saved = await formPost(`/dataset/${name}/edit`, [
    ['name', name],
    ['title', 'Edited in the form'],
    ['ownerOrg', org.name],
    ['licenseId', 'cc-by-4.0'],
    ['customFields.region', 'north'],
    ['customFields.projectCode', 'P-2'],
  ]);
  t.is(saved.status, 302, await saved.text());
  const record = (await app.api.get(`/api/v1/packages/${name}`, as(people.editor))).body;
  t.is(record.title, 'Edited in the form');
  t.deepEqual(record.customFields, { region: 'north', population: 5, projectCode: 'P-2' });
  t.is(record.rights, 'Kept through the form');
  t.deepEqual(record.extras, [{ key: 'note', value: 'kept' }]);
});

test.serial('the form edits the record’s plain keys, errors at the field; values it cannot hold exactly are kept', async (t) => {
  const name = unique('pform-rec');
  const polygon = {
    type: 'Polygon',
    coordinates: [
      [
        [8, 52],
        [9, 52],
        [9, 53],
        [8, 52],
      ],
    ],
  };
  const made = await app.api.post(
    '/api/v1/packages',
    {
      name,
      ownerOrg: org.name,
      licenseId: 'cc-by-4.0',
      spatial: [{ name: 'Somewhere', geometry: polygon }],
      publisher: { name: 'Office of Statistics' },
      customFields: { region: 'south' },
    },
    as(people.editor),
  );
  t.is(made.status, 201, made.text);
  const form = (await page(`/dataset/${name}/edit`, { cookie: people.editor.cookie })).text;
  t.true(form.includes('<textarea id="temporal" name="temporal"'), form);
  t.false(form.includes('id="spatial"'), 'a place with a geometry is not offered as a box');

  const fields: Array<[string, string]> = [
    ['name', name],
    ['ownerOrg', org.name],
    ['licenseId', 'cc-by-4.0'],
    ['customFields.region', 'south'],
    ['accessLevel', 'restricted public'],
    ['language', 'en\r\nde'],
  ];
  const inverted = await formPost(`/dataset/${name}/edit`, [...fields, ['temporal', '2020-01-02/2020-01-01']]);
  t.is(inverted.status, 422);
  t.regex(await inverted.text(), /<p class="field-error" id="temporal-error">temporal.0.end: must not end before it starts<\/p>/);

  const saved = await formPost(`/dataset/${name}/edit`, [...fields, ['temporal', '2010/2019-12-31\r\n2021-01-01/']]);
  t.is(saved.status, 302, await saved.text());
  const record = (await app.api.get(`/api/v1/packages/${name}`, as(people.editor))).body;
  t.deepEqual(record.temporal, [{ start: '2010', end: '2019-12-31' }, { start: '2021-01-01' }]);
  t.is(record.accessLevel, 'restricted public');
  t.deepEqual(record.language, ['en', 'de']);
  t.deepEqual(record.spatial, [{ name: 'Somewhere', geometry: polygon }], 'kept');
  t.deepEqual(record.publisher, { name: 'Office of Statistics' }, 'kept');

  // A coverage that is only a box is edited as one.
  const boxed = await formPost(`/dataset/new`, [
    ['name', unique('pform-box')],
    ['spatial', '6.5, 51.2, 11.6, 53.9'],
    ['customFields.region', 'south'],
  ]);
  t.is(boxed.status, 302, await boxed.text());
  const draftName = decodeURIComponent(boxed.headers.get('location')!.split('/')[2]!);
  const draft = (await app.api.get(`/api/v1/packages/${draftName}?state=draft`, as(people.editor))).body;
  t.deepEqual(draft.spatial, [{ bbox: [6.5, 51.2, 11.6, 53.9] }]);
  t.true((await page(`/dataset/${draftName}/edit`, { cookie: people.editor.cookie })).text.includes('value="6.5,51.2,11.6,53.9"'));
});

test.serial('the add-a-link form has the resource profile’s fields, judged as REST judges them', async (t) => {
  const site = await app.api.put(
    '/api/v1/admin/profiles/site',
    {
      resourceFields: [{ name: 'granularity', type: 'choice', label: 'Granularity', choices: [{ value: 'daily' }, { value: 'monthly' }] }],
    },
    app.sysadmin,
  );
  t.is(site.status, 200, site.text);
  const name = unique('pform-res');
  t.is((await app.api.post('/api/v1/packages/drafts', { name, ownerOrg: org.name }, as(people.editor))).status, 201);
  const edit = (await page(`/dataset/${name}/edit`, { cookie: people.editor.cookie })).text;
  t.true(edit.includes('<select id="resource.customFields.granularity" name="resource.customFields.granularity"'), edit);

  const link: Array<[string, string]> = [['url', 'https://example.org/data.csv']];
  const refused = await formPost(`/dataset/${name}/resources`, [...link, ['resource.customFields.granularity', 'hourly']]);
  t.is(refused.status, 422);
  const html = await refused.text();
  t.regex(html, /<p class="field-error" id="resource.customFields.granularity-error">must be one of: daily, monthly<\/p>/);
  t.true(html.includes('href="#resource.customFields.granularity"'));

  const added = await formPost(`/dataset/${name}/resources`, [...link, ['resource.customFields.granularity', 'daily']]);
  t.is(added.status, 302, await added.text());
  const draft = (await app.api.get(`/api/v1/packages/${name}?state=draft`, as(people.editor))).body;
  t.deepEqual(draft.resources[0].customFields, { granularity: 'daily' });
});
