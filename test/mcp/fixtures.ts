import type { TestApp } from '../helpers/app.ts';
import { uploadAndProcess } from '../helpers/pipeline.ts';

/**
 * The catalog every MCP client test walks: a public dataset with a queryable CSV (a column name with a
 * space and one with a pipe in its values), a private dataset of the same organization, and users:
 * a member of that organization and a member of another one.
 */
export const CSV = ['city,"avg temp",note', 'Oslo,6.1,cold|dark', 'Lisbon,17.4,"sunny', 'mostly"', 'Cairo,22.3,hot'].join('\n') + '\n';

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
  const created = await app.api.post(
    `${api}/packages`,
    {
      name: 'city-temperatures',
      title: 'City Temperatures',
      ownerOrg: 'climate-office',
      licenseId: 'cc-by-4.0',
      notes: 'Average yearly air temperature of a few cities.',
      tags: ['climate', 'temperature'],
      resources: [
        { urlType: 'upload', name: 'temperatures.csv', format: 'CSV' },
        { urlType: 'link', url: 'https://example.org/stations.json', name: 'Stations', format: 'JSON' },
      ],
    },
    admin,
  );
  if (created.status !== 201) throw new Error(`create dataset: ${created.text}`);
  const [csv, link] = created.body.resources as Array<{ id: string }>;
  await uploadAndProcess(app.api, csv!.id, CSV, admin);
  const secret = await app.api.post(
    `${api}/packages`,
    {
      name: 'secret-temperatures',
      title: 'Secret Temperature Logs',
      ownerOrg: 'climate-office',
      licenseId: 'cc-by-4.0',
      private: true,
      notes: 'Internal temperature logs.',
      tags: ['climate', 'internal-logs'],
    },
    admin,
  );
  if (secret.status !== 201) throw new Error(`create private: ${secret.text}`);
  return {
    memberToken: member.token,
    outsiderToken: outsider.token,
    publicName: 'city-temperatures',
    privateName: 'secret-temperatures',
    csvId: csv!.id,
    linkId: link!.id,
  };
}
