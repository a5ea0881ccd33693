import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestApp } from './app.ts';
import type { Reply } from './client.ts';
import { uploadAndProcess } from './pipeline.ts';

const API = '/api/v1';

/** The CSV the queryable resource holds: one column of each type the pipeline infers. */
export const FEED_CSV = 'station,reading,calibrated,label\n1,0.5,true,north\n2,1.25,false,south\n3,2.75,true,east\n';

/** A link whose query holds `{`, `}`, `|` and `^`, which WHATWG URLs leave raw and strict RDF parsers refuse. */
export const READINGS_API = 'https://example.org/air/api?filter={"station":1}|latest^2';

export interface FeedDatasetRef {
  id: string;
  name: string;
}

/**
 * A loaded instance for the feed tests, made by the sysadmin in one organization: four public datasets
 * (tags, licenses with and without a document URL, link resources, one queryable CSV upload), and a
 * private, a draft and a soft-deleted dataset that no feed may show.
 */
export interface FeedFixtures {
  org: { id: string; name: string; title: string };
  public: {
    /** Two link resources, cc-by-4.0, tags, author and maintainer with emails, version, landing page. */
    rich: FeedDatasetRef;
    /** A processed CSV upload (queryable, with its column schema) and a link; version 1.0.0. */
    table: FeedDatasetRef & { uploadId: string; linkId: string };
    /** No notes, no tags, no resources, no version, a license without a document URL. */
    bare: FeedDatasetRef;
    /** The only public dataset with "glacier" in it, created last. */
    glacier: FeedDatasetRef & { updatedAt: string };
  };
  private: FeedDatasetRef;
  draft: FeedDatasetRef;
  deleted: FeedDatasetRef;
}

function expect(reply: Reply, status: number, what: string) {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status} ${reply.text}`);
  return reply.body;
}

export async function loadFeedFixtures(app: TestApp, prefix: string): Promise<FeedFixtures> {
  const admin = app.sysadmin;
  const org = expect(
    await app.api.post(`${API}/organizations`, { name: `${prefix}-org`, title: `${prefix} Statistics & Co <Org>` }, admin),
    201,
    'create organization',
  );
  const create = async (body: Record<string, unknown>) =>
    expect(
      await app.api.post(`${API}/packages`, { ownerOrg: org.name, licenseId: 'cc-by-4.0', ...body }, admin),
      201,
      `create ${body.name}`,
    );

  const rich = await create({
    name: `${prefix}-rich`,
    title: 'Air quality "PM2.5" readings <hourly> & daily',
    notes: 'Readings from every station.\nLine two, with émojis 🌍 and a </script> tag.',
    tags: ['air', 'pollution', 'hourly readings'],
    author: 'Ada Author',
    authorEmail: 'ada@example.org',
    maintainer: 'Max Maintainer',
    maintainerEmail: 'max@example.org',
    version: '2.1',
    url: 'https://example.org/air?lang=en&view=full',
    resources: [
      {
        urlType: 'link',
        url: 'https://example.org/air/readings.json',
        name: 'Readings (JSON)',
        format: 'JSON',
        description: 'All readings',
      },
      // Characters a URL may hold in its query that Turtle's IRIREF may not: the feeds must encode them.
      { urlType: 'link', url: READINGS_API, name: 'Readings API', format: 'Custom API' },
    ],
  });
  const table = await create({
    name: `${prefix}-table`,
    title: 'Station readings table',
    notes: 'A queryable table of station readings.',
    tags: ['air', 'table'],
    licenseId: 'odc-odbl',
    version: '1.0.0',
    resources: [
      { urlType: 'upload', name: 'readings.csv', format: 'CSV' },
      { urlType: 'link', url: 'https://example.org/station/about.html', name: 'About the stations', format: 'HTML' },
    ],
  });
  const [upload, link] = table.resources;
  await uploadAndProcess(app.api, upload.id, FEED_CSV, admin);
  const bare = await create({ name: `${prefix}-bare`, licenseId: 'other-open' });
  const privateOne = await create({ name: `${prefix}-private`, title: 'Glacier secrets (private)', tags: ['air'], private: true });
  const deleted = await create({ name: `${prefix}-deleted`, title: 'Glacier archive (deleted)', tags: ['air'] });
  expect(await app.api.delete(`${API}/packages/${deleted.id}`, admin), 204, 'soft-delete');
  const draft = expect(
    await app.api.post(
      `${API}/packages/drafts`,
      { name: `${prefix}-draft`, title: 'Glacier draft', ownerOrg: org.name, tags: ['air'] },
      admin,
    ),
    201,
    'create draft',
  );
  // Last, so that modified_since its update time finds it alone among the public datasets.
  const glacier = await create({ name: `${prefix}-glacier`, title: 'Glacier melt measurements', tags: ['ice'] });
  return {
    org,
    public: {
      rich: { id: rich.id, name: rich.name },
      table: { id: table.id, name: table.name, uploadId: upload.id, linkId: link.id },
      bare: { id: bare.id, name: bare.name },
      glacier: { id: glacier.id, name: glacier.name, updatedAt: glacier.updatedAt },
    },
    private: { id: privateOne.id, name: privateOne.name },
    draft: { id: draft.id, name: draft.name },
    deleted: { id: deleted.id, name: deleted.name },
  };
}

/** The IRI a dataset has in the DCAT feeds. */
export const datasetIri = (app: TestApp, id: string) => `${app.url}/dataset/${id}`;

const run = promisify(execFile);

/** The Python with rdflib, pySHACL and mlcroissant that test/run.ts provides. */
export function testPython(): string {
  const python = process.env.TEST_PYTHON;
  if (!python) throw new Error('TEST_PYTHON is not set: run the suite with `npm test` (test/run.ts), which provisions rdflib and pySHACL');
  return python;
}

/** Writes `text` to a fresh temporary file named `name` and returns its path. */
export async function tempFile(name: string, text: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'almanac-feed-'));
  const file = path.join(dir, name);
  await fs.writeFile(file, text);
  return file;
}

/** Runs a Python script of test/helpers with TEST_PYTHON and returns the JSON it prints. */
export async function python(script: string, args: string[]): Promise<any> {
  const { stdout } = await run(testPython(), [path.join(import.meta.dirname, script), ...args], {
    maxBuffer: 64 * 1024 * 1024,
    // mlcroissant and rdflib must need no network for what the tests ask of them.
    // Any other address goes to a proxy that is not there, so a fetch from outside fails the test.
    env: { ...process.env, NO_PROXY: '127.0.0.1,localhost', HTTP_PROXY: 'http://127.0.0.1:9', HTTPS_PROXY: 'http://127.0.0.1:9' },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

export interface ParsedRdf {
  triples: number;
  datasets: string[];
  identifiers: string[];
  titles: string[];
  distributions: string[];
  totalItems: number[];
  first: string[];
  next: string[];
  previous: string[];
  last: string[];
  canonical: string[] | null;
}

/** rdflib parses `text` in `format` (ttl, jsonld, rdf): what it found in it. */
export async function rdflibParse(format: 'ttl' | 'jsonld' | 'rdf', text: string): Promise<ParsedRdf> {
  return python('rdf_tools.py', ['parse', format, await tempFile(`feed.${format}`, text)]);
}
