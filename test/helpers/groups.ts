import type { ExecutionContext } from 'ava';
import type { TestApp } from './app.ts';
import type { TestUser } from './client.ts';

export const ORGANIZATIONS = '/api/v1/organizations';
/** The spec calls categories "groups" in its paths. */
export const CATEGORIES = '/api/v1/groups';

/** An organization or a category as the API presents it. */
export interface GroupRecord {
  id: string;
  name: string;
  title: string;
  description: string | null;
  imageUrl: string | null;
  state: string;
  createdAt: string;
  updatedAt: string;
}

/** The fields of an organization or a category in a list (its record and its dataset count), sorted. */
export const LISTED_GROUP_FIELDS = ['createdAt', 'description', 'id', 'imageUrl', 'name', 'packageCount', 'state', 'title', 'updatedAt'];

/** Creates an organization (`ORGANIZATIONS`) or a category (`CATEGORIES`) as the sysadmin. */
export async function createGroup(t: ExecutionContext, app: TestApp, base: string, fields: Record<string, unknown>) {
  const res = await app.api.post(base, fields, app.sysadmin);
  t.is(res.status, 201, res.text);
  return res.body as GroupRecord;
}

/**
 * Creates an organization or a category with `members` in their roles (each role at most one user),
 * added by the sysadmin, who names each user by id or by username.
 */
export async function groupWithMembers(
  t: ExecutionContext,
  app: TestApp,
  base: string,
  fields: Record<string, unknown>,
  members: Partial<Record<'admin' | 'editor' | 'member', TestUser>>,
  by: 'id' | 'username' = 'id',
) {
  const group = await createGroup(t, app, base, fields);
  for (const role of ['admin', 'editor', 'member'] as const) {
    const user = members[role];
    if (!user) continue;
    const res = await app.api.post(`${base}/${group.name}/members`, { user: user[by], role }, app.sysadmin);
    t.is(res.status, 201, res.text);
  }
  return group;
}
