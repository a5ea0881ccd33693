import test from 'ava';
import { startTestApp, until, type TestApp } from '../helpers/app.ts';
import type { Reply } from '../helpers/client.ts';
import { CATEGORIES, createGroup, ORGANIZATIONS } from '../helpers/groups.ts';
import type { HarvestCursor, HarvestItem, HarvestRecord, ReadPageOptions, SourceReader } from '../../src/domain/harvest/record.ts';
import { sourceReader } from '../../src/harvest/readers/index.ts';

/**
 * Serial, in this order: the last test changes a dataset the first two read.
 *
 * Issue 18: the readers against a real source — a running Almanac, whose CKAN-compatible Action API and
 * DCAT-AP feed (/catalog.ttl, Hydra paging) are CKAN- and DCAT-shaped. Three public datasets, a private
 * one and a draft: each reader yields exactly the three public ones, with their fields.
 */

let app: TestApp;
const PACKAGES = '/api/v1/packages';
const READ: ReadPageOptions = { since: null, timeoutMs: 15_000 };
const made: Record<'rich' | 'plain' | 'bare', Record<string, any>> = {} as never;

function expectStatus(reply: Reply, status: number, what: string) {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status} ${reply.text}`);
  return reply.body;
}

const RICH = {
  name: 'hr-rich',
  title: 'Air quality readings',
  notes: 'Hourly readings from every station.',
  ownerOrg: 'hr-org',
  licenseId: 'cc-by-4.0',
  tags: ['air', 'hourly readings'],
  groups: ['hr-cat'],
  author: 'Ada Author',
  authorEmail: 'ada@example.org',
  maintainer: 'Max Maintainer',
  maintainerEmail: 'max@example.org',
  version: '2.1',
  url: 'https://example.org/air',
  resources: [
    { urlType: 'link', url: 'https://example.org/air/readings.json', name: 'Readings (JSON)', description: 'All readings', format: 'JSON' },
    { urlType: 'link', url: 'https://example.org/air/stations.csv', name: 'Stations', format: 'CSV' },
  ],
};
const PLAIN = {
  name: 'hr-plain',
  title: 'Water levels',
  ownerOrg: 'hr-org',
  licenseId: 'odc-odbl',
  tags: ['water'],
  resources: [{ urlType: 'link', url: 'https://example.org/water.csv', name: 'Levels', format: 'CSV' }],
};
const BARE = { name: 'hr-bare', title: 'Bare', ownerOrg: 'hr-org', licenseId: 'other-open' };

test.before(async (t) => {
  app = await startTestApp();
  await createGroup(t, app, ORGANIZATIONS, { name: 'hr-org', title: 'Harvest Readers Org', description: 'Where the data lives' });
  await createGroup(t, app, CATEGORIES, { name: 'hr-cat', title: 'Harvest Category' });
  made.rich = expectStatus(await app.api.post(PACKAGES, RICH, app.sysadmin), 201, 'create hr-rich');
  made.plain = expectStatus(await app.api.post(PACKAGES, PLAIN, app.sysadmin), 201, 'create hr-plain');
  made.bare = expectStatus(await app.api.post(PACKAGES, BARE, app.sysadmin), 201, 'create hr-bare');
  const secret = { name: 'hr-secret', title: 'Secret', ownerOrg: 'hr-org', licenseId: 'cc-by', private: true };
  expectStatus(await app.api.post(PACKAGES, secret, app.sysadmin), 201, 'create hr-secret');
  expectStatus(
    await app.api.post(`${PACKAGES}/drafts`, { name: 'hr-draft', title: 'Draft', ownerOrg: 'hr-org' }, app.sysadmin),
    201,
    'create draft',
  );
});
test.after.always(async () => app?.stop());

async function readAll(reader: SourceReader, read = READ) {
  const items: HarvestItem[] = [];
  let cursor: HarvestCursor | null = null;
  let pages = 0;
  do {
    const page = await reader.readPage(cursor, read);
    items.push(...page.items);
    cursor = page.next;
    pages += 1;
  } while (cursor && pages < 20);
  return { items, pages };
}

const recordsOf = (items: HarvestItem[]) => {
  const refused = items.filter((i) => i.kind === 'refused');
  if (refused.length) throw new Error(`refused: ${JSON.stringify(refused)}`);
  return new Map(items.map((i) => [(i as { record: HarvestRecord }).record.title, (i as { record: HarvestRecord }).record]));
};

test.serial(
  'the CKAN reader pages package_search (rows 2, sort id asc) and yields exactly the public datasets with their fields',
  async (t) => {
    const reader = sourceReader('ckan', `${app.url}/`, { pageSize: 2, allowPrivateNetworks: true });
    let read = await readAll(reader);
    // The catalog's search index may trail the writes by a moment.
    await until('three public datasets searchable', async () => (read = await readAll(reader)).items.length === 3);
    t.is(read.pages, 3, 'two pages of results, then the empty page that ends the search');
    const records = recordsOf(read.items);
    t.deepEqual([...records.keys()].sort(), ['Air quality readings', 'Bare', 'Water levels']);
    t.deepEqual(
      read.items.map((i) => (i as { record: HarvestRecord }).record.remoteId),
      [made.rich.id, made.plain.id, made.bare.id].sort(),
      'in id order',
    );

    const rich = records.get(RICH.title)!;
    t.deepEqual({ ...rich, tags: [...rich.tags].sort() }, {
      remoteId: made.rich.id,
      remoteUrl: `${app.url}/dataset/hr-rich`,
      name: 'hr-rich',
      title: RICH.title,
      notes: RICH.notes,
      tags: ['air', 'hourly readings'],
      licenseId: 'cc-by-4.0',
      organization: { name: 'hr-org', title: 'Harvest Readers Org', description: 'Where the data lives' },
      groups: [{ name: 'hr-cat', title: 'Harvest Category' }],
      private: false,
      author: 'Ada Author',
      authorEmail: 'ada@example.org',
      maintainer: 'Max Maintainer',
      maintainerEmail: 'max@example.org',
      version: '2.1',
      url: 'https://example.org/air',
      modified: new Date(made.rich.updatedAt).toISOString(),
      // No record, extras or profile fields at the source: empty, never absent (ckan-record.ts).
      metadata: {},
      extras: [],
      customFields: {},
      resources: [
        {
          url: RICH.resources[0]!.url,
          name: 'Readings (JSON)',
          description: 'All readings',
          format: 'JSON',
          mimetype: null,
          size: null,
          metadata: {},
          customExtras: [],
        },
        {
          url: RICH.resources[1]!.url,
          name: 'Stations',
          description: null,
          format: 'CSV',
          mimetype: null,
          size: null,
          metadata: {},
          customExtras: [],
        },
      ],
    } satisfies HarvestRecord);
    t.like(records.get('Bare'), { name: 'hr-bare', licenseId: 'other-open', tags: [], groups: [], resources: [], notes: null });
    t.like(records.get('Water levels'), {
      licenseId: 'odc-odbl',
      tags: ['water'],
      resources: [{ url: PLAIN.resources[0]!.url, format: 'CSV' }],
    });
  },
);

test.serial(
  'the DCAT-AP reader follows /catalog.ttl?page_size=2 along hydra:next and yields exactly the public datasets with their fields',
  async (t) => {
    const reader = sourceReader('dcat-ap', `${app.url}/catalog.ttl?page_size=2`, { allowPrivateNetworks: true });
    const read = await readAll(reader);
    t.is(read.pages, 2, 'three datasets in pages of two');
    const records = recordsOf(read.items);
    t.deepEqual([...records.keys()].sort(), ['Air quality readings', 'Bare', 'Water levels']);

    const { metadata, extras, customFields, ...rich } = records.get(RICH.title)!;
    // The record's DCAT-AP properties as this site's feed wrote them (the full mapping: test/interop/dcat-ap-roundtrip.test.ts).
    t.like(metadata, {
      accessRights: { uri: 'http://publications.europa.eu/resource/authority/access-right/PUBLIC' },
      creator: { name: 'Ada Author', email: 'ada@example.org' },
      identifier: made.rich.id,
    });
    t.deepEqual([extras, customFields], [[], undefined]);
    t.deepEqual({ ...rich, tags: [...rich.tags].sort(), resources: rich.resources.map(({ metadata: _m, customExtras: _c, ...r }) => r) }, {
      remoteId: made.rich.id,
      remoteUrl: `${app.url}/dataset/${made.rich.id}`,
      name: null,
      title: RICH.title,
      notes: RICH.notes,
      tags: ['air', 'hourly readings'],
      licenseId: 'cc-by-4.0',
      organization: { name: 'harvest-readers-org', title: 'Harvest Readers Org', description: null },
      groups: [],
      private: false,
      author: 'Ada Author',
      authorEmail: 'ada@example.org',
      maintainer: 'Max Maintainer',
      maintainerEmail: 'max@example.org',
      version: '2.1',
      url: 'https://example.org/air',
      modified: new Date(made.rich.updatedAt).toISOString(),
      resources: [
        {
          url: RICH.resources[0]!.url,
          name: 'Readings (JSON)',
          description: 'All readings',
          format: 'JSON',
          mimetype: 'application/json',
          size: null,
        },
        { url: RICH.resources[1]!.url, name: 'Stations', description: null, format: 'CSV', mimetype: 'text/csv', size: null },
      ],
    } satisfies Omit<HarvestRecord, 'metadata' | 'extras' | 'customFields'>);
    // odc-odbl is named by its opendefinition URL; other-open (no document) by the license node's dct:identifier.
    t.like(records.get('Water levels'), { remoteId: made.plain.id, licenseId: 'odc-odbl', tags: ['water'] });
    t.like(records.get('Bare'), { remoteId: made.bare.id, licenseId: 'other-open', resources: [] });
  },
);

test.serial('the CKAN reader with since yields only the datasets modified since then', async (t) => {
  await until(
    'the public datasets searchable',
    async () => (await readAll(sourceReader('ckan', app.url, { allowPrivateNetworks: true }))).items.length >= 3,
  );
  const since = new Date();
  await new Promise((resolve) => setTimeout(resolve, 20));
  const changed = expectStatus(
    await app.api.put(`${PACKAGES}/hr-plain`, { ...PLAIN, resources: undefined, title: 'Water levels (revised)' }, app.sysadmin),
    200,
    'update',
  );
  const reader = sourceReader('ckan', app.url, { pageSize: 2, allowPrivateNetworks: true });
  let read = await readAll(reader, { ...READ, since });
  await until('the change searchable', async () => (read = await readAll(reader, { ...READ, since })).items.length === 1);
  t.deepEqual(
    read.items.map((i) => (i as { record: HarvestRecord }).record.title),
    ['Water levels (revised)'],
  );
  t.is((read.items[0] as { record: HarvestRecord }).record.modified, new Date(changed.updatedAt).toISOString());
  t.is(read.pages, 2, 'the changed dataset, then the empty page');
});
