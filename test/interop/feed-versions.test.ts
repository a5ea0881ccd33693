import path from 'node:path';
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import type { Auth } from '../helpers/client.ts';
import { python, rdflibParse, tempFile } from '../helpers/feed-fixtures.ts';
import { uploadAndProcess } from '../helpers/pipeline.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';

/**
 * A resource's data versions in the feeds (issue 30 §2): on its DCAT distribution the version it serves
 * (`dcat:version`), its notes against the version before (`adms:versionNotes`), and each earlier version
 * it served as a distribution of its own (`dcat:hasVersion`); a version held for review is in none of
 * them. rdflib reads every serialization, pySHACL checks the official DCAT-AP 3 shapes, mlcroissant the
 * Croissant.
 */

const V1 = '/api/v1';
const SHAPES = path.join(SHARED_DATA, 'dcat-ap/dcat-ap-3.0.0-SHACL.ttl');
const DCAT = 'http://www.w3.org/ns/dcat#';
const DCT = 'http://purl.org/dc/terms/';
const VERSION_NOTES = 'http://www.w3.org/ns/adms#versionNotes';

/** Made while a draft (served at once, breaking or not): v2 renames city to town and adds region, v3 adds year. */
const FILES = [
  'id,city,people\n1,Brest,139000\n2,Quimper,63000\n',
  'id,town,people,region\n1,Brest,139000,BZH\n2,Quimper,63000,BZH\n',
  'id,town,people,region,year\n1,Brest,140000,BZH,2024\n2,Quimper,63000,BZH,2024\n',
];
/** Once published: `people` dropped, a breaking change that is held for its editor. */
const HELD = 'id,town,region,year\n1,Brest,BZH,2024\n2,Quimper,BZH,2024\n';

let app: TestApp;
let admin: Auth;
let dataset: { id: string; name: string };
let resourceId: string;
let distribution: string;

test.before(async () => {
  app = await startTestApp();
  admin = { token: app.adminToken };
  await app.api.post(`${V1}/organizations`, { name: 'fv-org' }, admin);
  const draft = await app.api.post(`${V1}/packages/drafts`, { name: 'fv-towns', ownerOrg: 'fv-org', licenseId: 'cc-by-4.0' }, admin);
  if (draft.status !== 201) throw new Error(draft.text);
  const resource = await app.api.post(
    `${V1}/packages/${draft.body.id}/resources`,
    { urlType: 'upload', name: 'towns.csv', format: 'CSV' },
    admin,
  );
  if (resource.status !== 201) throw new Error(resource.text);
  resourceId = resource.body.id;
  for (const file of FILES) await uploadAndProcess(app.api, resourceId, file, admin);
  const published = await app.api.post(`${V1}/packages/${draft.body.id}/publish`, {}, admin);
  if (published.status !== 200) throw new Error(published.text);
  await uploadAndProcess(app.api, resourceId, HELD, admin);
  dataset = { id: draft.body.id, name: 'fv-towns' };
  distribution = `${app.url}/dataset/${dataset.id}/resource/${resourceId}`;
});
test.after.always(async () => app?.stop());

interface Triple {
  s: string;
  p: string;
  o: string;
}

/** rdflib's N-Triples of the document, as subject, predicate and object (an IRI bare, a literal's text alone). */
async function triplesOf(format: 'ttl' | 'jsonld' | 'rdf', text: string): Promise<Triple[]> {
  const parsed = await rdflibParse(format, text);
  return parsed.canonical!.map((line) => {
    const [, s, p, o] = /^(\S+) <([^>]+)> (.*) \.$/.exec(line)!;
    const literal = /^"(.*)"(?:\^\^<[^>]+>|@[\w-]+)?$/.exec(o!);
    const bare = (term: string) => term.replace(/^<(.*)>$/, '$1');
    return { s: bare(s!), p: p!, o: literal ? JSON.parse(`"${literal[1]}"`) : bare(o!) };
  });
}

const values = (triples: Triple[], s: string, p: string) =>
  triples
    .filter((t) => t.s === s && t.p === p)
    .map((t) => t.o)
    .sort();

test('the fixture: version 4 is held for review, 3 is served', async (t) => {
  const list = await app.api.get(`${V1}/resources/${resourceId}/versions`, admin);
  t.deepEqual(
    list.body.results.map((v: { version: number; current: boolean; review: string | null }) => [v.version, v.current, v.review]),
    [
      [4, false, 'pending'],
      [3, true, null],
      [2, false, null],
      [1, false, null],
    ],
  );
});

for (const format of ['ttl', 'jsonld', 'rdf'] as const) {
  test(`/dataset/{name}.${format}: the distribution states its version and notes, and links each earlier one; the held version is absent`, async (t) => {
    const reply = await app.api.get(`/dataset/${dataset.name}.${format}`);
    t.is(reply.status, 200, reply.text);
    const triples = await triplesOf(format, reply.text);
    const versions = (await app.api.get(`${V1}/resources/${resourceId}/versions`, admin)).body.results as Array<{
      version: number;
      sha256: string;
      size: number;
      createdAt: string;
    }>;

    t.deepEqual(values(triples, distribution, `${DCAT}version`), ['3']);
    t.deepEqual(values(triples, distribution, VERSION_NOTES), ['Column year added.']);
    t.deepEqual(values(triples, distribution, `${DCAT}hasVersion`), [`${distribution}#version-1`, `${distribution}#version-2`]);

    for (const n of [1, 2]) {
      const node = `${distribution}#version-${n}`;
      const stored = versions.find((v) => v.version === n)!;
      const download = `${app.url}${V1}/resources/${resourceId}/versions/${n}/download`;
      t.deepEqual(values(triples, node, `http://www.w3.org/1999/02/22-rdf-syntax-ns#type`), [`${DCAT}Distribution`]);
      t.deepEqual(values(triples, node, `${DCAT}version`), [String(n)]);
      t.deepEqual(values(triples, node, `${DCAT}downloadURL`), [download]);
      t.deepEqual(values(triples, node, `${DCAT}accessURL`), [download]);
      t.deepEqual(values(triples, node, `${DCAT}byteSize`), [String(FILES[n - 1]!.length)]);
      t.is(new Date(values(triples, node, `${DCT}issued`)[0]!).toISOString(), stored.createdAt);
      const [checksum] = values(triples, node, 'http://spdx.org/rdf/terms#checksum');
      t.deepEqual(values(triples, checksum!, 'http://spdx.org/rdf/terms#checksumValue'), [stored.sha256]);
      // The download answers the bytes the feed describes.
      const bytes = await (await fetch(download)).text();
      t.is(bytes, FILES[n - 1]);
    }
    t.deepEqual(values(triples, `${distribution}#version-2`, VERSION_NOTES), [
      'Column city renamed to town (breaking); column region added.',
    ]);
    t.deepEqual(values(triples, `${distribution}#version-1`, VERSION_NOTES), [], 'a first version has nothing to compare with');
    // The held version is named nowhere: not as a version node, not by its download URL.
    t.false(reply.text.includes('version-4'));
    t.false(reply.text.includes(`versions/4/`));
  });
}

test('the catalog page carries the same versions, and it and the dataset document pass the DCAT-AP 3.0.0 shapes', async (t) => {
  const catalog = await app.api.get('/catalog.ttl');
  const triples = await triplesOf('ttl', catalog.text);
  t.deepEqual(values(triples, distribution, `${DCAT}version`), ['3']);
  t.deepEqual(values(triples, distribution, `${DCAT}hasVersion`), [`${distribution}#version-1`, `${distribution}#version-2`]);
  for (const [name, text] of [
    ['catalog.ttl', catalog.text],
    ['dataset.ttl', (await app.api.get(`/dataset/${dataset.id}.ttl`)).text],
  ]) {
    const result = await python('rdf_tools.py', ['shacl', await tempFile(name!, text!), SHAPES]);
    t.is(result.violations, 0, result.report);
    t.is(result.warnings, 0, result.report);
    t.true(result.conforms, result.report);
  }
});

test("Croissant: the FileObject is the served version and the dataset's version that version as MAJOR; mlcroissant validates it without a warning", async (t) => {
  const reply = await app.api.get(`/dataset/${dataset.name}/croissant.jsonld`);
  t.is(reply.status, 200, reply.text);
  t.is(reply.body.version, '3.0.0');
  t.is(reply.body.distribution.length, 1);
  t.is(reply.body.distribution[0].version, '3');
  t.is(reply.body.distribution[0].sha256, (await app.api.get(`${V1}/resources/${resourceId}`)).body.hash);
  const read = await python('croissant_check.py', [await tempFile('croissant.jsonld', reply.text)]);
  t.true(read.valid, read.errors);
  t.deepEqual(read.warnings, [], read.warnings.join('\n'));
});

test("Croissant keeps the publisher's own version when the record has one; its file still says its data version", async (t) => {
  const made = await app.api.post(
    `${V1}/packages`,
    {
      name: 'fv-own-version',
      ownerOrg: 'fv-org',
      licenseId: 'cc-by-4.0',
      version: '2026.1.0',
      resources: [{ urlType: 'upload', name: 'a.csv' }],
    },
    admin,
  );
  t.is(made.status, 201, made.text);
  await uploadAndProcess(app.api, made.body.resources[0].id, FILES[0]!, admin);
  const reply = await app.api.get('/dataset/fv-own-version/croissant.jsonld');
  t.is(reply.body.version, '2026.1.0');
  t.is(reply.body.distribution[0].version, '1');
});

test("a version's IRI resolves: its fragment is the version's row on the resource's page", async (t) => {
  const page = await fetch(distribution);
  t.is(page.status, 200);
  const html = await page.text();
  for (const n of [1, 2, 3]) t.true(html.includes(`id="version-${n}"`), `version ${n}`);
});
