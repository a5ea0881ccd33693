import { startTestApp, type TestApp } from '../helpers/app.ts';
import { uploadAndProcess } from '../helpers/pipeline.ts';

/**
 * The catalog every MCP client test walks: a public dataset with a queryable CSV (a column name with a
 * space and one with a pipe in its values), a private dataset of the same organization, and users:
 * a member of that organization and a member of another one.
 */
export const CSV = ['city,"avg temp",note', 'Oslo,6.1,cold|dark', 'Lisbon,17.4,"sunny', 'mostly"', 'Cairo,22.3,hot'].join('\n') + '\n';

/** A query over the CSV whose Markdown answer shows both escapes: a pipe in a value, a line break in a quoted field. */
export const CSV_QUERY = 'SELECT city, note FROM data ORDER BY city';

/** What query_resource answers to `CSV_QUERY`: the pipe in a value escaped, the line break inside a quoted field as <br>. */
export const csvQueryMarkdown = (elapsedMs: number) =>
  [
    '| city | note |',
    '| --- | --- |',
    '| Cairo | hot |',
    '| Lisbon | sunny<br>mostly |',
    '| Oslo | cold\\|dark |',
    '',
    `3 rows, ${elapsedMs} ms`,
  ].join('\n');

/** The tools the server offers, all read-only, sorted by name. */
export const MCP_TOOL_NAMES = [
  'get_dataset',
  'get_dataset_history',
  'get_resource',
  'get_resource_schema',
  'list_groups',
  'list_organizations',
  'list_tags',
  'query_resource',
  'search_datasets',
];

export interface McpFixture {
  memberToken: string;
  outsiderToken: string;
  publicName: string;
  privateName: string;
  csvId: string;
  linkId: string;
}

export async function seedMcpCatalog(app: TestApp): Promise<McpFixture> {
  const admin = { token: app.adminToken };
  const api = '/api/v1';
  for (const org of ['climate-office', 'other-office']) {
    const reply = await app.api.post(
      `${api}/organizations`,
      { name: org, title: org === 'climate-office' ? 'Climate Office' : 'Other Office' },
      admin,
    );
    if (reply.status !== 201) throw new Error(`create ${org}: ${reply.text}`);
  }
  await app.api.post(`${api}/groups`, { name: 'weather', title: 'Weather' }, admin);
  const [member, outsider] = await Promise.all([app.api.newUser('mcp-member'), app.api.newUser('mcp-outsider')]);
  await app.api.post(`${api}/organizations/climate-office/members`, { user: member.id, role: 'member' }, admin);
  await app.api.post(`${api}/organizations/other-office/members`, { user: outsider.id, role: 'member' }, admin);
  const createDataset = async (fields: Record<string, unknown>) => {
    const reply = await app.api.post(`${api}/packages`, { ownerOrg: 'climate-office', licenseId: 'cc-by-4.0', ...fields }, admin);
    if (reply.status !== 201) throw new Error(`create ${String(fields.name)}: ${reply.text}`);
    return reply.body as { resources: Array<{ id: string }> };
  };
  const created = await createDataset({
    name: 'city-temperatures',
    title: 'City Temperatures',
    notes: 'Average yearly air temperature of a few cities.',
    tags: ['climate', 'temperature'],
    resources: [
      { urlType: 'upload', name: 'temperatures.csv', format: 'CSV' },
      { urlType: 'link', url: 'https://example.org/stations.json', name: 'Stations', format: 'JSON' },
    ],
  });
  const [csv, link] = created.resources;
  await uploadAndProcess(app.api, csv!.id, CSV, admin);
  await createDataset({
    name: 'secret-temperatures',
    title: 'Secret Temperature Logs',
    private: true,
    notes: 'Internal temperature logs.',
    tags: ['climate', 'internal-logs'],
  });
  return {
    memberToken: member.token,
    outsiderToken: outsider.token,
    publicName: 'city-temperatures',
    privateName: 'secret-temperatures',
    csvId: csv!.id,
    linkId: link!.id,
  };
}

/** Starts the app of one MCP client test file and seeds the catalog its tests walk. */
export async function startAppWithMcpCatalog(): Promise<{ app: TestApp; fx: McpFixture }> {
  const app = await startTestApp();
  return { app, fx: await seedMcpCatalog(app) };
}
