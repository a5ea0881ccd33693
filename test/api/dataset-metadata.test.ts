import test, { type ExecutionContext } from 'ava';
import { fieldPaths, isProblem } from '../helpers/problem.ts';
import { startTestAppWithPeople, type People, type TestApp } from '../helpers/app.ts';
import { as } from '../helpers/client.ts';
import { ORGANIZATIONS, groupWithMembers } from '../helpers/groups.ts';
import { RECORD } from '../helpers/metadata-record.ts';
import { unique } from '../helpers/names.ts';

/**
 * Issue 28 §1 over HTTP: the DCAT-AP / DCAT-US record of a dataset and its resources, its extras, kept
 * as sent; what a write leaves alone and what it clears; and the 422s that name the field and write
 * nothing.
 */

let app: TestApp;
let people: People<'admin' | 'editor' | 'member'>;
let org: { name: string };
test.before(async (t) => {
  ({ app, people } = await startTestAppWithPeople('meta', ['admin', 'editor', 'member']));
  org = await groupWithMembers(t as unknown as ExecutionContext, app, ORGANIZATIONS, { name: unique('meta-org') }, people);
});
test.after.always(async () => app?.stop());

const PKG = '/api/v1/packages';

/** A record with every kind of value the record holds, with extras to keep byte for byte. */
const FULL_RECORD = {
  ...RECORD,
  extras: [
    { key: 'harvest_note', value: '  kept  as sent \u00e9\u{1F600} ' },
    { key: 'a_json', value: '{"b": [1, 2]}' },
  ],
};

async function create(t: ExecutionContext, fields: Record<string, unknown>) {
  const res = await app.api.post(PKG, { name: unique('meta'), ownerOrg: org.name, licenseId: 'cc-by-4.0', ...fields }, as(people.editor));
  t.is(res.status, 201, res.text);
  return res.body;
}

test('the full record is kept as sent and comes back on create, read and list', async (t) => {
  const created = await create(t, FULL_RECORD);
  const read = (await app.api.get(`${PKG}/${created.name}`, as(people.editor))).body;
  for (const [key, value] of Object.entries(FULL_RECORD)) {
    t.deepEqual(created[key], value, key);
    t.deepEqual(read[key], value, key);
  }
  const listed = await app.api.get(`${PKG}?organization=${org.name}&limit=100`, as(people.editor));
  t.is(listed.status, 200, listed.text);
  t.deepEqual(listed.body.results.find((d: { id: string }) => d.id === created.id).temporal, FULL_RECORD.temporal);
});

test('an unset record key is null, or an empty list, and extras an empty list', async (t) => {
  const d = await create(t, {});
  t.deepEqual([d.temporal, d.publisher, d.accessLevel, d.extras, d.customFields], [[], null, null, [], {}]);
});

test('PUT replaces the record of an active dataset: what it omits is cleared', async (t) => {
  const d = await create(t, FULL_RECORD);
  const res = await app.api.put(
    `${PKG}/${d.name}`,
    { name: d.name, ownerOrg: org.name, licenseId: 'cc-by-4.0', accessLevel: 'public' },
    as(people.editor),
  );
  t.is(res.status, 200, res.text);
  t.is(res.body.accessLevel, 'public');
  t.deepEqual([res.body.temporal, res.body.extras, res.body.publisher], [[], [], null]);
});

test('a draft PUT touches only the keys it sends; null clears one', async (t) => {
  const draft = (await app.api.post(`${PKG}/drafts`, { temporal: FULL_RECORD.temporal, rights: 'x' }, as(people.editor))).body;
  const res = await app.api.put(`${PKG}/${draft.id}`, { rights: null, language: ['fr'] }, as(people.editor));
  t.is(res.status, 200, res.text);
  t.deepEqual([res.body.temporal, res.body.rights, res.body.language], [FULL_RECORD.temporal, null, ['fr']]);
});

const BAD: Array<[string, Record<string, unknown>, string]> = [
  ['an inverted bbox', { spatial: [{ bbox: [10, 50, 5, 55] }] }, 'spatial.0.bbox'],
  ['a bbox out of range', { spatial: [{ bbox: [-200, 0, 0, 10] }] }, 'spatial.0.bbox.0'],
  ['a bbox of three numbers', { spatial: [{ bbox: [1, 2, 3] }] }, 'spatial.0.bbox'],
  ['a period that ends before it starts', { temporal: [{ start: '2020-01-02', end: '2020-01-01' }] }, 'temporal.0.end'],
  ['a period with neither end', { temporal: [{}] }, 'temporal.0'],
  ['a date that is not ISO 8601', { temporal: [{ start: 'last spring' }] }, 'temporal.0.start'],
  ['a GeoJSON that is not a geometry', { spatial: [{ geometry: { type: 'Feature', properties: {} } }] }, 'spatial.0.geometry'],
  [
    'an open polygon ring',
    {
      spatial: [
        {
          geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [0, 0],
                [1, 0],
                [1, 1],
                [0, 1],
              ],
            ],
          },
        },
      ],
    },
    'spatial.0.geometry',
  ],
  ['an unknown access level', { accessLevel: 'secret' }, 'accessLevel'],
  ['a bureau code of the wrong shape', { bureauCode: ['6:7'] }, 'bureauCode.0'],
  ['a rights statement too long', { rights: 'x'.repeat(20_001) }, 'rights'],
  [
    'a publisher nested too deep',
    { publisher: nested(7) },
    'publisher.subOrganizationOf.subOrganizationOf.subOrganizationOf.subOrganizationOf.subOrganizationOf',
  ],
  ['an unknown key in a place', { spatial: [{ name: 'x', colour: 'red' }] }, 'spatial.0.colour'],
  ['an empty geometry', { spatial: [{ geometry: { type: 'GeometryCollection', geometries: [] } }] }, 'spatial.0.geometry'],
  ['an hour without its minutes', { temporal: [{ start: '2010-01-01T12' }] }, 'temporal.0.start'],
  ['the year 0', { temporal: [{ start: '0000' }] }, 'temporal.0.start'],
  ['profile values nested too deep', { customFields: { a: { b: { c: { d: { e: { f: 1 } } } } } } }, 'customFields'],
  [
    'an extra given twice',
    {
      extras: [
        { key: 'a', value: '1' },
        { key: 'a', value: '2' },
      ],
    },
    'extras.1.key',
  ],
  ['an extra with a number value', { extras: [{ key: 'a', value: 1 }] }, 'extras.0.value'],
];

function nested(depth: number): Record<string, unknown> {
  return depth === 0 ? { name: 'root' } : { name: `level ${depth}`, subOrganizationOf: nested(depth - 1) };
}

for (const [what, fields, path] of BAD) {
  test(`${what} is a 422 naming ${path}, and writes nothing`, async (t) => {
    const name = unique('bad');
    const res = await app.api.post(PKG, { name, ownerOrg: org.name, licenseId: 'cc-by-4.0', ...fields }, as(people.editor));
    isProblem(t, res, 422, 'validation_failed');
    t.true(fieldPaths(res).includes(path), JSON.stringify(res.body.errors));
    t.is((await app.api.get(`${PKG}/${name}`, as(people.editor))).status, 404);
  });
}

test('a resource keeps its distribution record and its own extras; `extras` stays the system’s', async (t) => {
  const d = await create(t, {});
  const body = {
    name: 'Readings',
    url: 'https://example.org/readings.csv',
    format: 'CSV',
    accessUrl: 'https://example.org/readings',
    downloadUrl: 'https://example.org/readings.csv',
    checksum: { algorithm: 'sha256', value: 'a'.repeat(64) },
    language: ['en'],
    customExtras: [{ key: 'station', value: 'K-7' }],
  };
  const res = await app.api.post(`${PKG}/${d.name}/resources`, body, as(people.editor));
  t.is(res.status, 201, res.text);
  t.like(res.body, { accessUrl: body.accessUrl, downloadUrl: body.downloadUrl, checksum: body.checksum, customExtras: body.customExtras });
  t.deepEqual(res.body.extras, {});
  const refused = await app.api.post(
    `${PKG}/${d.name}/resources`,
    { ...body, url: 'https://example.org/2.csv', extras: { a: 1 } },
    as(people.editor),
  );
  isProblem(t, refused, 422, 'validation_failed');
});

test('keywords find a dataset by its themes, its publisher and the places it covers', async (t) => {
  const word = unique('zq').replace(/[^a-z]/g, '');
  const d = await create(t, {
    theme: [{ label: `Theme${word}` }],
    publisher: { name: `Publisher${word}` },
    spatial: [{ name: `Place${word}` }],
  });
  for (const q of [`Theme${word}`, `Publisher${word}`, `Place${word}`]) {
    const found = await app.api.get(`${PKG}?q=${q}&semantic=false`, as(people.editor));
    t.deepEqual(
      found.body.results.map((r: { id: string }) => r.id),
      [d.id],
      q,
    );
  }
});

test('an identifier another dataset claims, or one of this site’s IRIs, is not written to data.json: the dataset’s own IRI is', async (t) => {
  const victim = await create(t, {});
  const victimIri = `${app.url}/dataset/${victim.id}`;
  const thief = await create(t, { identifier: victimIri });
  const shared = unique('shared-id');
  const twins = [await create(t, { identifier: shared }), await create(t, { identifier: shared })];
  const own = await create(t, { identifier: unique('own-id') });
  const catalog = (await app.api.get('/data.json')).body as { dataset: Array<{ identifier: string }> };
  const ids = catalog.dataset.map((e) => e.identifier);
  t.is(ids.filter((id) => id === victimIri).length, 1);
  for (const d of [thief, ...twins]) t.true(ids.includes(`${app.url}/dataset/${d.id}`), d.name);
  t.false(ids.includes(shared));
  t.true(ids.includes(own.identifier));
});

test('extras an editor writes are never triples in the feeds, whatever their key', async (t) => {
  const d = await create(t, {
    extras: [
      { key: 'http://purl.org/dc/terms/title', value: '_:subject <http://purl.org/dc/terms/title> "Injected title" .\n' },
      { key: 'http://xmlns.com/foaf/0.1/name', value: `<${app.url}/catalog> <http://xmlns.com/foaf/0.1/name> "Injected catalog" .\n` },
    ],
  });
  const feed = await app.api.get(`/dataset/${d.id}.ttl`);
  t.is(feed.status, 200);
  t.false(feed.text.includes('Injected'), feed.text);
});
