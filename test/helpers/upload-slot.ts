import type { TestApp } from './app.ts';

/**
 * A new organization (with `editor` as its editor, when given) holding a public dataset with one upload
 * resource, created by the sysadmin; returns the resource's id. The set-up of the files, queries and
 * deadlines tests.
 */
export async function newUploadSlot(app: TestApp, name: string, opts: { editor?: { id: string }; format?: string } = {}) {
  const admin = { token: app.adminToken };
  const org = `${name}-org`;
  const made = await app.api.post('/api/v1/organizations', { name: org }, admin);
  if (made.status !== 201) throw new Error(`organization ${org}: ${made.status} ${made.text}`);
  if (opts.editor) {
    const member = await app.api.post(`/api/v1/organizations/${org}/members`, { user: opts.editor.id, role: 'editor' }, admin);
    if (member.status !== 201) throw new Error(`editor of ${org}: ${member.status} ${member.text}`);
  }
  const created = await app.api.post(
    '/api/v1/packages',
    { name, ownerOrg: org, licenseId: 'cc-by-4.0', resources: [{ urlType: 'upload', name: `${name}.csv`, format: opts.format ?? 'CSV' }] },
    admin,
  );
  if (created.status !== 201) throw new Error(`dataset ${name}: ${created.status} ${created.text}`);
  return created.body.resources[0].id as string;
}
