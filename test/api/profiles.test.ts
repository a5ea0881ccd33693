import test, { type ExecutionContext } from 'ava';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { fieldPaths, isProblem } from '../helpers/problem.ts';
import { startTestAppWithPeople, type People, type TestApp } from '../helpers/app.ts';
import { anonymous, as } from '../helpers/client.ts';
import { createGroup, ORGANIZATIONS, groupWithMembers } from '../helpers/groups.ts';
import { unique } from '../helpers/names.ts';

/**
 * Issue 28 §1, metadata profiles, over HTTP: a sysadmin defines the site's and an organization's extra
 * fields; every dataset and resource write judges `customFields` by them (422 naming
 * `customFields.<name>`), publishing needs the required ones, a profile change never loses a stored value,
 * and the profiles are public JSON Schema documents that agree with what the API accepts.
 */

let app: TestApp;
let people: People<'editor'>;
let orgA: { name: string };
let orgB: { name: string };
test.before(async (t) => {
  ({ app, people } = await startTestAppWithPeople('prof', ['editor']));
  const ctx = t as unknown as ExecutionContext;
  orgA = await groupWithMembers(ctx, app, ORGANIZATIONS, { name: unique('prof-a') }, { editor: people.editor });
  orgB = await groupWithMembers(ctx, app, ORGANIZATIONS, { name: unique('prof-b') }, { editor: people.editor });
});
test.after.always(async () => app?.stop());

const PKG = '/api/v1/packages';
const SITE = '/api/v1/admin/profiles/site';
const orgProfile = (name: string) => `/api/v1/admin/profiles/organizations/${name}`;

const REGION = {
  name: 'region',
  type: 'choice',
  label: 'Region',
  help: 'Where the data was collected',
  required: true,
  choices: [
    { value: 'north', label: 'North' },
    { value: 'south', label: 'South' },
  ],
  form: { widget: 'select' },
};
const SITE_FIELDS = [
  REGION,
  { name: 'population', type: 'integer', label: 'Population', min: 0 },
  { name: 'homepage', type: 'url', label: 'Homepage' },
  { name: 'keywords', type: 'list', label: 'Keywords', maxLength: 20 },
  { name: 'reviewed', type: 'date', label: 'Reviewed on' },
  { name: 'theme', type: 'choice', label: 'Theme', vocabulary: ['http://publications.europa.eu/resource/authority/data-theme/ENVI'] },
];
const RESOURCE_FIELDS = [
  { name: 'granularity', type: 'choice', label: 'Granularity', choices: [{ value: 'daily' }, { value: 'monthly' }] },
];

const create = (fields: Record<string, unknown>, org = orgA.name) =>
  app.api.post(PKG, { name: unique('prof'), ownerOrg: org, licenseId: 'cc-by-4.0', ...fields }, as(people.editor));

/** MCP's get_dataset as a stateless client calls it, as the editor. */
async function mcpGetDataset(nameOrId: string) {
  const reply = await fetch(`${app.url}/api/mcp`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${people.editor.token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_dataset', arguments: { nameOrId } } }),
  });
  const text = await reply.text();
  const json = text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)![1]!;
  return JSON.parse(json).result.structuredContent;
}

// The site profile is shared by every test below: the ones that change it run one at a time, first.
test.serial('a sysadmin defines the site profile: 201, then 200, read back as given', async (t) => {
  const created = await app.api.put(SITE, { datasetFields: SITE_FIELDS, resourceFields: RESOURCE_FIELDS }, app.sysadmin);
  t.is(created.status, 201, created.text);
  t.like(created.body, { scope: 'site', organization: null });
  t.deepEqual(created.body.datasetFields[0], REGION);
  t.is(created.body.datasetFields[1].required, false, 'required defaults to false');
  const again = await app.api.put(SITE, { datasetFields: SITE_FIELDS, resourceFields: RESOURCE_FIELDS }, app.sysadmin);
  t.is(again.status, 200, again.text);
  const read = await app.api.get(SITE, app.sysadmin);
  t.deepEqual(read.body.datasetFields, created.body.datasetFields);
  t.deepEqual(read.body.resourceFields, [{ ...RESOURCE_FIELDS[0], required: false }]);
});

test.serial('a profile definition that makes no sense is a 422 naming the field of the definition', async (t) => {
  const bad = await app.api.put(
    SITE,
    {
      datasetFields: [
        { name: 'a', type: 'choice', label: 'A' },
        { name: 'b', type: 'text', label: 'B', min: 3 },
        { name: 'c', type: 'integer', label: 'C', min: 5, max: 1 },
        { name: 'c', type: 'text', label: 'C again' },
        { name: '1x', type: 'text', label: 'X' },
      ],
    },
    app.sysadmin,
  );
  isProblem(t, bad, 422, 'validation_failed');
  t.deepEqual(fieldPaths(bad), [
    'datasetFields.0.choices',
    'datasetFields.1.min',
    'datasetFields.2.max',
    'datasetFields.3.name',
    'datasetFields.4.name',
  ]);
  t.deepEqual((await app.api.get(SITE, app.sysadmin)).body.datasetFields.length, SITE_FIELDS.length, 'nothing written');
});

test.serial('profile administration is for sysadmins: 401 anonymous, 403 for anyone else, on every route', async (t) => {
  for (const [method, path] of [
    ['GET', '/api/v1/admin/profiles'],
    ['GET', SITE],
    ['PUT', SITE],
    ['DELETE', SITE],
    ['GET', orgProfile(orgA.name)],
    ['PUT', orgProfile(orgA.name)],
    ['DELETE', orgProfile(orgA.name)],
  ] as const) {
    const body = method === 'PUT' ? { datasetFields: [] } : undefined;
    isProblem(t, await app.api.request(method, path, body, as(people.editor)), 403, 'forbidden');
    isProblem(t, await app.api.request(method, path, body, anonymous), 401, 'unauthenticated');
  }
  t.is((await app.api.get(SITE, app.sysadmin)).body.datasetFields.length, SITE_FIELDS.length, 'nothing changed');
});

test.serial('REST writes are judged by the profile: wrong type, outside the choices or vocabulary, unknown key', async (t) => {
  const res = await create({
    customFields: {
      region: 'east',
      population: 12.5,
      homepage: 'not a url',
      keywords: ['ok', 'x'.repeat(21)],
      reviewed: 'yesterday',
      theme: 'http://example.org/other',
      colour: 'red',
    },
  });
  isProblem(t, res, 422, 'validation_failed');
  t.deepEqual(fieldPaths(res), [
    'customFields.colour',
    'customFields.homepage',
    'customFields.keywords',
    'customFields.population',
    'customFields.region',
    'customFields.reviewed',
    'customFields.theme',
  ]);
  const message = (path: string) => res.body.errors.find((e: { path: string }) => e.path === path).message;
  t.is(message('customFields.region'), 'must be one of: north, south');
  t.is(message('customFields.population'), 'must be an integer');
  t.is(message('customFields.theme'), 'is not in the vocabulary of this field');
  t.is(message('customFields.colour'), 'is not a field of this profile');
});

test.serial('an active dataset needs the required fields; a draft may lack them until it is published', async (t) => {
  const missing = await create({ customFields: { population: 3 } });
  isProblem(t, missing, 422, 'validation_failed');
  t.deepEqual(fieldPaths(missing), ['customFields.region']);

  const draft = await app.api.post(
    `${PKG}/drafts`,
    { name: unique('prof-draft'), ownerOrg: orgA.name, licenseId: 'cc-by-4.0' },
    as(people.editor),
  );
  t.is(draft.status, 201, draft.text);
  const early = await app.api.post(`${PKG}/${draft.body.id}/publish`, {}, as(people.editor));
  isProblem(t, early, 400, 'publish_requirements_missing');
  t.deepEqual(fieldPaths(early), ['customFields.region']);
  // The draft's values are still checked for their type at once.
  isProblem(
    t,
    await app.api.put(`${PKG}/${draft.body.id}`, { customFields: { region: 'east' } }, as(people.editor)),
    422,
    'validation_failed',
  );
  const filled = await app.api.put(`${PKG}/${draft.body.id}`, { customFields: { region: 'north', population: 40 } }, as(people.editor));
  t.is(filled.status, 200, filled.text);
  const published = await app.api.post(`${PKG}/${draft.body.id}/publish`, {}, as(people.editor));
  t.is(published.status, 200, published.text);
  t.deepEqual(published.body.customFields, { region: 'north', population: 40 });
});

test.serial('resources are judged by the resource fields, on create, add and replace', async (t) => {
  const bad = await create({
    customFields: { region: 'south' },
    resources: [{ url: 'https://example.org/a.csv', customFields: { granularity: 'hourly' } }],
  });
  isProblem(t, bad, 422, 'validation_failed');
  t.deepEqual(fieldPaths(bad), ['resources.0.customFields.granularity']);

  const d = await create({
    customFields: { region: 'south' },
    resources: [{ url: 'https://example.org/a.csv', customFields: { granularity: 'daily' } }],
  });
  t.is(d.status, 201, d.text);
  t.deepEqual(d.body.resources[0].customFields, { granularity: 'daily' });
  const added = await app.api.post(
    `${PKG}/${d.body.id}/resources`,
    { url: 'https://example.org/b.csv', customFields: { granularity: 'yearly' } },
    as(people.editor),
  );
  isProblem(t, added, 422, 'validation_failed');
  t.deepEqual(fieldPaths(added), ['customFields.granularity']);
  const id = d.body.resources[0].id;
  const replaced = await app.api.put(
    `/api/v1/resources/${id}`,
    { url: 'https://example.org/a.csv', customFields: { granularity: 'monthly' } },
    as(people.editor),
  );
  t.is(replaced.status, 200, replaced.text);
  t.deepEqual((await app.api.get(`/api/v1/resources/${id}`, as(people.editor))).body.customFields, { granularity: 'monthly' });
});

test.serial('an organization profile adds fields for that organization’s datasets only; a name the site uses is refused', async (t) => {
  const org = await createGroup(t, app, ORGANIZATIONS, { name: unique('prof-c') });
  const clash = await app.api.put(
    orgProfile(org.name),
    { datasetFields: [{ name: 'region', type: 'text', label: 'Region' }] },
    app.sysadmin,
  );
  isProblem(t, clash, 422, 'validation_failed');
  t.deepEqual(fieldPaths(clash), ['datasetFields.0.name']);

  const fields = [{ name: 'projectCode', type: 'text', label: 'Project code', pattern: '^P-[0-9]{4}$' }];
  const put = await app.api.put(orgProfile(orgB.name), { datasetFields: fields }, app.sysadmin);
  t.is(put.status, 201, put.text);
  t.like(put.body, { scope: 'organization', organization: { name: orgB.name } });

  const wrong = await create({ customFields: { region: 'north', projectCode: 'P-12' } }, orgB.name);
  isProblem(t, wrong, 422, 'validation_failed');
  t.deepEqual(fieldPaths(wrong), ['customFields.projectCode']);
  t.is((await create({ customFields: { region: 'north', projectCode: 'P-1234' } }, orgB.name)).status, 201);
  // Not a field in organization A: the profile of B does not reach it.
  const elsewhere = await create({ customFields: { region: 'north', projectCode: 'P-1234' } }, orgA.name);
  isProblem(t, elsewhere, 422, 'validation_failed');
  t.deepEqual(fieldPaths(elsewhere), ['customFields.projectCode']);

  const listed = await app.api.get('/api/v1/admin/profiles', app.sysadmin);
  t.is(listed.status, 200, listed.text);
  t.true(listed.body.results.some((p: { organization: { name: string } | null }) => p.organization?.name === orgB.name));
  t.deepEqual((await app.api.get(orgProfile(orgB.name), app.sysadmin)).body.datasetFields, [{ ...fields[0], required: false }]);
});

test.serial('the profiles are public JSON Schema documents that accept what the API accepts', async (t) => {
  const site = await app.api.get('/api/v1/profiles/site/schema.json', anonymous);
  t.is(site.status, 200, site.text);
  t.is(site.body.$schema, 'https://json-schema.org/draft/2020-12/schema');
  t.is(site.body.$id, `${app.url}/api/v1/profiles/site/schema.json`);
  t.deepEqual(site.body.properties.customFields.required, ['region']);
  const org = await app.api.get(`/api/v1/profiles/organizations/${orgB.name}/schema.json`, anonymous);
  t.is(org.status, 200, org.text);
  t.deepEqual(Object.keys(org.body.properties.customFields.properties), [...SITE_FIELDS.map((f) => f.name), 'projectCode']);
  isProblem(t, await app.api.get('/api/v1/profiles/organizations/no-such-org/schema.json', anonymous), 404, 'not_found');

  const ajv = new Ajv2020({ strict: false });
  ajvFormats.default(ajv);
  const validate = ajv.compile(org.body);
  const good = await create({ customFields: { region: 'south', projectCode: 'P-0001', keywords: ['a'] } }, orgB.name);
  t.is(good.status, 201, good.text);
  t.true(validate(good.body), JSON.stringify(validate.errors));
  t.false(validate({ customFields: { region: 'east' } }), 'a value outside the choices fails the schema as it fails the API');
  t.false(validate({ customFields: { region: 'north', population: 1.5 } }));
});

test.serial('a profile can be given as JSON Schema of the supported subset; other keywords are refused by name', async (t) => {
  const org = await createGroup(t, app, ORGANIZATIONS, { name: unique('prof-d') });
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      level: { type: 'string', title: 'Level', oneOf: [{ const: 'l1', title: 'One' }, { const: 'l2' }] },
      size: { type: 'number', minimum: 0, maximum: 10 },
      contact: { type: 'string', format: 'email', description: 'Who answers' },
      tags2: { type: 'array', items: { type: 'string', enum: ['x', 'y'] } },
    },
    required: ['level'],
  };
  const put = await app.api.put(orgProfile(org.name), { datasetSchema: schema }, app.sysadmin);
  t.is(put.status, 201, put.text);
  t.deepEqual(put.body.datasetFields, [
    { name: 'level', type: 'choice', label: 'Level', required: true, choices: [{ value: 'l1', label: 'One' }, { value: 'l2' }] },
    { name: 'size', type: 'number', label: 'size', required: false, min: 0, max: 10 },
    { name: 'contact', type: 'email', label: 'contact', help: 'Who answers', required: false },
    { name: 'tags2', type: 'list', label: 'tags2', required: false, choices: [{ value: 'x' }, { value: 'y' }] },
  ]);
  const unsupported = await app.api.put(
    orgProfile(org.name),
    {
      datasetSchema: {
        type: 'object',
        properties: { a: { type: 'string', allOf: [] }, b: { type: 'object' }, c: { type: 'string', oneOf: [null] } },
      },
    },
    app.sysadmin,
  );
  isProblem(t, unsupported, 422, 'validation_failed');
  t.deepEqual(fieldPaths(unsupported), [
    'datasetSchema.properties.a.allOf',
    'datasetSchema.properties.b.type',
    'datasetSchema.properties.c.oneOf',
  ]);
  const both = await app.api.put(orgProfile(org.name), { datasetSchema: schema, datasetFields: [] }, app.sysadmin);
  t.deepEqual(fieldPaths(both), ['datasetSchema']);
  t.is((await app.api.delete(orgProfile(org.name), app.sysadmin)).status, 204);
  t.deepEqual((await app.api.get(orgProfile(org.name), app.sysadmin)).body, {
    scope: 'organization',
    organization: { id: org.id, name: org.name, title: org.title },
    datasetFields: [],
    resourceFields: [],
    createdAt: null,
    updatedAt: null,
  });
});

test.serial('changing the profile (a field removed, choices narrowed) loses no stored value', async (t) => {
  const d = await create({ customFields: { region: 'north', population: 7, keywords: ['kept'] } });
  t.is(d.status, 201, d.text);
  const narrowed = SITE_FIELDS.filter((f) => f.name !== 'population').map((f) =>
    f.name === 'region' ? { ...REGION, choices: [{ value: 'south', label: 'South' }, { value: 'west' }] } : f,
  );
  t.is((await app.api.put(SITE, { datasetFields: narrowed, resourceFields: RESOURCE_FIELDS }, app.sysadmin)).status, 200);

  const read = await app.api.get(`${PKG}/${d.body.name}`, as(people.editor));
  t.deepEqual(read.body.customFields, { region: 'north', population: 7, keywords: ['kept'] });
  // A full PUT that sends the stored values back unchanged keeps them, though the profile no longer allows them.
  const { id: _id, ...rest } = read.body;
  const kept = await app.api.put(
    `${PKG}/${d.body.name}`,
    { name: rest.name, ownerOrg: orgA.name, licenseId: 'cc-by-4.0', title: 'Edited', customFields: read.body.customFields },
    as(people.editor),
  );
  t.is(kept.status, 200, kept.text);
  t.deepEqual(kept.body.customFields, { region: 'north', population: 7, keywords: ['kept'] });
  t.is(kept.body.title, 'Edited');
  // A new value must fit the profile as it is now.
  const changed = await app.api.put(
    `${PKG}/${d.body.name}`,
    { name: rest.name, ownerOrg: orgA.name, licenseId: 'cc-by-4.0', customFields: { ...read.body.customFields, population: 8 } },
    as(people.editor),
  );
  isProblem(t, changed, 422, 'validation_failed');
  t.deepEqual(fieldPaths(changed), ['customFields.population']);
  isProblem(t, await create({ customFields: { region: 'north' } }), 422, 'validation_failed');
  t.is((await create({ customFields: { region: 'west' } })).status, 201);

  // MCP has no write tools: its get_dataset shows the same values, those outside the profile included.
  t.deepEqual((await mcpGetDataset(d.body.name)).customFields, read.body.customFields);

  // Removing the site profile keeps the values too.
  t.is((await app.api.delete(SITE, app.sysadmin)).status, 204);
  t.deepEqual((await app.api.get(`${PKG}/${d.body.name}`, as(people.editor))).body.customFields, read.body.customFields);
});
