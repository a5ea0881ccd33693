import { startTestAppWithPeople, until, type TestApp } from '../helpers/app.ts';
import type { TestUser } from '../helpers/client.ts';

export interface WebFixtures {
  app: TestApp;
  people: { member: TestUser; outsider: TestUser };
  org: string;
  otherOrg: string;
  open: { name: string; id: string };
  hostile: { name: string; id: string };
  secret: { name: string; id: string };
  draft: { name: string; id: string };
  /** The uploaded CSV of `open`, queryable. */
  csv: { id: string };
}

/** A small CSV with numbers, text and a null. */
export const STATIONS_CSV = 'station,level,river\n1,0.5,Thames\n2,1.25,Severn\n3,,Thames\n4,2.75,Trent\n';

/** Text from a stranger that must come out as text on every page. */
export const HOSTILE_TITLE = 'Readings <script>alert(1)</script> & "quotes"';
export const HOSTILE_NOTES = [
  '## Method',
  '',
  'Plain **bold** and a [good link](https://example.org/about).',
  '',
  '<img src=x onerror=alert(1)> [bad](javascript:alert(1)) </script><script>alert(2)</script>',
].join('\n');

/**
 * A catalog for the page tests: an organization with a public dataset, a hostile one, a private one and a
 * draft; a member of it, and an outsider who belongs to another organization.
 */
export async function loadWebFixtures(prefix: string): Promise<WebFixtures> {
  const { app, people } = await startTestAppWithPeople(prefix, ['member', 'outsider'] as const);
  const admin = app.sysadmin;
  const org = `${prefix}-org`;
  const otherOrg = `${prefix}-other`;
  const must = (reply: { status: number; text: string; body: { id: string; name: string } }, what: string) => {
    if (reply.status >= 300) throw new Error(`${what}: ${reply.status} ${reply.text}`);
    return { id: reply.body.id, name: reply.body.name };
  };
  must(await app.api.post('/api/v1/organizations', { name: org, title: `${prefix} Environment Agency` }, admin), 'org');
  must(await app.api.post('/api/v1/organizations', { name: otherOrg, title: 'Other Org' }, admin), 'other org');
  await app.api.post(`/api/v1/organizations/${org}/members`, { user: people.member.id, role: 'member' }, admin);
  await app.api.post(`/api/v1/organizations/${otherOrg}/members`, { user: people.outsider.id, role: 'editor' }, admin);
  const dataset = (name: string, extra: Record<string, unknown>) => ({
    name,
    title: `Title of ${name}`,
    ownerOrg: org,
    licenseId: 'cc-by-4.0',
    notes: 'Hourly river levels measured at gauging stations.',
    tags: ['rivers', 'hydrology'],
    resources: [
      { name: 'levels.csv', url: 'https://example.org/levels.csv', format: 'CSV' },
      { name: 'stations.csv', urlType: 'upload', format: 'CSV' },
    ],
    ...extra,
  });
  const open = must(await app.api.post('/api/v1/packages', dataset(`${prefix}-river-levels`, {}), admin), 'open');
  const hostile = must(
    await app.api.post(
      '/api/v1/packages',
      dataset(`${prefix}-hostile`, { title: HOSTILE_TITLE, notes: HOSTILE_NOTES, tags: ['hostile'] }),
      admin,
    ),
    'hostile',
  );
  const secret = must(
    await app.api.post(
      '/api/v1/packages',
      dataset(`${prefix}-secret-salaries`, { title: 'Secret salaries of rivers', private: true, tags: ['classified-tag'] }),
      admin,
    ),
    'secret',
  );
  const draft = must(
    await app.api.post('/api/v1/packages/drafts', { name: `${prefix}-unfinished`, title: 'Unfinished rivers draft', ownerOrg: org }, admin),
    'draft',
  );
  const [, upload] = (await app.api.get(`/api/v1/packages/${open.id}`, admin)).body.resources as Array<{ id: string }>;
  const uploaded = await fetch(`${app.url}/api/v1/resources/${upload!.id}/upload`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${admin.token}`,
      'Content-Type': 'text/csv',
      'Content-Disposition': 'attachment; filename="stations.csv"',
    },
    body: STATIONS_CSV,
  });
  if (!uploaded.ok) throw new Error(`upload: ${uploaded.status} ${await uploaded.text()}`);
  await until('the CSV is queryable', async () => (await app.api.get(`/api/v1/resources/${upload!.id}/schema`)).body.queryable === true);
  // The listing follows the search index: wait until the published ones are found.
  for (let i = 0; i < 200; i++) {
    const found = await app.api.get(`/api/v1/packages?q=rivers&private=true&limit=100`, admin);
    if (found.body.count >= 2) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { app, people, org, otherOrg, open, hostile, secret, draft, csv: { id: upload!.id } };
}
