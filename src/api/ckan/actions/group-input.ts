import { fieldErrors } from '../../../http/validate.ts';
import type { FieldError } from '../../../domain/errors.ts';
import type { GroupFields } from '../../../domain/groups/groups.ts';
import { isUuid } from '../../../domain/ids.ts';
import { MEMBER_ROLES, type GroupKind, type MemberRole } from '../../../entities/index.ts';
import { GroupBody } from '../../v1/shared/group-family.ts';
import { CkanKeyedError } from '../ckan-keys.ts';

/**
 * A CKAN group or organization dict as organization_create/update/patch and group_* take it, read into
 * what the domain writes: the REST body's fields, checked by the REST body's schema, and CKAN's `users`.
 * A dict a show action gave back is accepted as it is: its read-only keys (package_count, created,
 * display_name, ...) are ignored as CKAN ignores them. What Almanac cannot keep is refused by name, never
 * dropped: extras, datasets listed as `packages`, a group hierarchy, another group type.
 */

/** REST path → CKAN key, for the domain's field errors (ckan-keys.ts). */
export const GROUP_KEYS = { imageUrl: 'image_url', user: 'username' };

export interface GroupInput {
  /** organization_create's own id, when the caller gives one (a dump keeps its ids). */
  id?: string;
  fields: GroupFields;
  /** The whole member list, when given (CKAN replaces the members with it); else members stay as they are. */
  users?: Array<{ user: string; role: MemberRole }>;
}

const typeOf = (kind: GroupKind) => (kind === 'organization' ? 'organization' : 'group');

/** `values`: the action's parameters, over the current dict for a patch. */
export function readGroupInput(values: Record<string, unknown>, kind: GroupKind, opts: { create: boolean }): GroupInput {
  const errors: FieldError[] = [];
  const text = (key: string) => {
    const v = values[key];
    return v === '' || v === null ? null : v;
  };
  const parsed = GroupBody.safeParse({
    name: values.name,
    title: text('title'),
    description: text('description'),
    imageUrl: text('image_url'),
  });
  const missingName = values.name === undefined || values.name === null || values.name === '';
  if (missingName) errors.push({ path: 'name', message: 'Missing value' });
  if (!parsed.success) {
    for (const e of fieldErrors(parsed.error)) {
      if (!(missingName && e.path === 'name')) errors.push({ ...e, path: GROUP_KEYS[e.path as 'imageUrl'] ?? e.path });
    }
  }

  const type = values.type;
  if (type !== undefined && type !== null && type !== '' && type !== typeOf(kind)) {
    errors.push({ path: 'type', message: `Almanac has no group type "${String(type)}" here; this action takes type "${typeOf(kind)}"` });
  }
  if (values.state !== undefined && values.state !== null && values.state !== '' && values.state !== 'active') {
    errors.push({ path: 'state', message: `Set by ${typeOf(kind)}_delete, not here` });
  }
  for (const [key, why] of Object.entries(UNKEPT)) {
    const v = values[key];
    if (v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0)) errors.push({ path: key, message: why(kind) });
  }

  let id: string | undefined;
  if (opts.create && values.id !== undefined && values.id !== null && values.id !== '') {
    if (typeof values.id === 'string' && isUuid(values.id)) id = values.id.toLowerCase();
    else errors.push({ path: 'id', message: 'Must be a UUID' });
  }
  const users = values.users === undefined || values.users === null ? undefined : readUsers(values.users, errors);

  if (errors.length || !parsed.success) throw new CkanKeyedError(errors);
  return { id, fields: parsed.data, users };
}

const UNKEPT: Record<string, (kind: GroupKind) => string> = {
  extras: () => 'Almanac keeps no extras on organizations and groups',
  packages: (kind) =>
    kind === 'organization'
      ? 'A dataset belongs to an organization by its owner_org: set it with package_create or package_patch'
      : 'Add datasets with member_create (object_type "package") or their own groups',
  groups: () => 'Almanac has no group hierarchy',
};

/** CKAN's `users`: `[{name | id, capacity}]`, capacity one of the roles (CKAN's default for a user is a member). */
function readUsers(value: unknown, errors: FieldError[]): Array<{ user: string; role: MemberRole }> | undefined {
  if (!Array.isArray(value)) {
    errors.push({ path: 'users', message: 'Must be a list of {"name": <user name or id>, "capacity": "admin" | "editor" | "member"}' });
    return undefined;
  }
  const users: Array<{ user: string; role: MemberRole }> = [];
  for (const [i, item] of value.entries()) {
    const entry = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    const user = [entry.name, entry.id].find((v) => typeof v === 'string' && v !== '') as string | undefined;
    const role = entry.capacity ?? 'member';
    if (!user) errors.push({ path: 'users', message: `${i}: give the user's name or id` });
    else if (!MEMBER_ROLES.includes(role as MemberRole))
      errors.push({ path: 'users', message: `${i}: role "${String(role)}" does not exist` });
    else users.push({ user, role: role as MemberRole });
  }
  return users;
}
