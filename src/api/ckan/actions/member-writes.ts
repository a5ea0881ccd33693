import { setDatasetInCategory } from '../../../domain/groups/category-datasets.ts';
import { getGroup } from '../../../domain/groups/groups.ts';
import { groupKindOf, removeMemberByRef } from '../../../domain/groups/member-sets.ts';
import { upsertMember } from '../../../domain/groups/members.ts';
import { MEMBER_ROLES, type GroupKind, type MemberRole } from '../../../entities/index.ts';
import type { ActionParams } from '../params.ts';
import { required, type Action, type ActionCall } from './action.ts';
import { CkanKeyedError, withCkanKeys } from '../ckan-keys.ts';

/**
 * Members of organizations and groups (Almanac categories): organization_member_create/delete and
 * group_member_create/delete (a user by `username`, in a `role`), and CKAN's generic member_create/
 * member_delete (`object`, `object_type`, `capacity`). They call what POST and DELETE
 * /organizations/{id}/members call, under the same rule: the group's admins and sysadmins. A dataset is
 * a member of a category as a dataset update puts it there; it belongs to an organization by its
 * owner_org, which these actions do not change.
 */

/** The domain's member fields by CKAN's names: a user not found is a bad `username` (or `object`). */
const MEMBER_KEYS = { user: 'username' };
const OBJECT_KEYS = { user: 'object', role: 'capacity', 'groups.0': 'id' };

function roleParam(params: ActionParams, key: string): MemberRole {
  const role = required(params, key);
  if (!MEMBER_ROLES.includes(role as MemberRole)) throw new CkanKeyedError([{ path: key, message: `role "${role}" does not exist` }]);
  return role as MemberRole;
}

/** CKAN's member dict (model_dictize.member_dictize); Almanac keys a membership by its two ids, so it has no id of its own. */
const memberDict = (groupId: string, tableName: 'user' | 'package', tableId: string, capacity: string) => ({
  group_id: groupId,
  table_name: tableName,
  table_id: tableId,
  capacity,
  state: 'active',
});

async function addUser(
  { domain, actor }: ActionCall,
  kind: GroupKind,
  groupRef: string,
  userRef: string,
  role: MemberRole,
  keys: Record<string, string>,
) {
  const { member } = await withCkanKeys(keys, () => upsertMember(domain, actor, kind, groupRef, { user: userRef, role }));
  const group = await getGroup(domain, actor, kind, groupRef);
  return memberDict(group.id, 'user', member.userId, role);
}

async function groupMemberCreate(kind: GroupKind, call: ActionCall) {
  const { params } = call;
  const id = required(params, 'id');
  const username = required(params, 'username');
  const role = roleParam(params, 'role');
  params.check();
  return addUser(call, kind, id, username, role, MEMBER_KEYS);
}

async function groupMemberDelete(kind: GroupKind, { domain, actor, params }: ActionCall) {
  const id = required(params, 'id');
  const username = required(params, 'username');
  params.check();
  await removeMemberByRef(domain, actor, kind, id, username);
  return null;
}

/** CKAN's object types Almanac has memberships for; a group in a group (a hierarchy) it has not. */
function objectType(params: ActionParams): 'user' | 'package' {
  const type = required(params, 'object_type');
  if (type !== 'user' && type !== 'package') {
    throw new CkanKeyedError([{ path: 'object_type', message: `Almanac has members of type "user" and "package", not "${type}"` }]);
  }
  return type;
}

/** A dataset joins a category; an organization holds its datasets by their owner_org instead. */
function categoryOnly(kind: GroupKind) {
  if (kind === 'organization') {
    throw new CkanKeyedError([
      {
        path: 'object_type',
        message: 'A dataset belongs to an organization by its owner_org: set it with package_create or package_patch',
      },
    ]);
  }
}

async function memberCreate(call: ActionCall) {
  const { domain, actor, params } = call;
  const id = required(params, 'id');
  const object = required(params, 'object');
  const type = objectType(params);
  const capacity = type === 'user' ? roleParam(params, 'capacity') : (params.string('capacity') ?? 'public');
  params.check();
  const kind = await groupKindOf(domain, actor, id);
  if (type === 'user') return addUser(call, kind, id, object, capacity as MemberRole, OBJECT_KEYS);
  categoryOnly(kind);
  const { datasetId, categoryId } = await withCkanKeys(OBJECT_KEYS, () => setDatasetInCategory(domain, actor, id, object, true));
  return memberDict(categoryId, 'package', datasetId, capacity);
}

async function memberDelete({ domain, actor, params }: ActionCall) {
  const id = required(params, 'id');
  const object = required(params, 'object');
  const type = objectType(params);
  params.check();
  const kind = await groupKindOf(domain, actor, id);
  if (type === 'user') {
    await removeMemberByRef(domain, actor, kind, id, object);
  } else {
    categoryOnly(kind);
    await withCkanKeys(OBJECT_KEYS, () => setDatasetInCategory(domain, actor, id, object, false));
  }
  return null;
}

function memberWrites(kind: GroupKind): Record<string, Action> {
  const ckan = kind === 'organization' ? 'organization' : 'group';
  const admins = kind === 'organization' ? "the organization's admins" : "the group's admins";
  return {
    [`${ckan}_member_create`]: {
      help: `Makes a user (username: name or id) a member of the ${ckan} id, or changes their role (role: admin, editor or member); ${admins} and sysadmins.`,
      write: true,
      run: (call) => groupMemberCreate(kind, call),
    },
    [`${ckan}_member_delete`]: {
      help: `Removes a user (username: name or id) from the ${ckan} id; ${admins} and sysadmins.`,
      write: true,
      run: (call) => groupMemberDelete(kind, call),
    },
  };
}

export const memberWriteActions: Record<string, Action> = {
  ...memberWrites('organization'),
  ...memberWrites('category'),
  member_create: {
    help:
      'Adds an object to an organization or group id: object_type "user" with capacity admin, editor or member (its admins and sysadmins), ' +
      'or "package" into a group (editors of the dataset who are members of the group); an organization holds datasets by their owner_org.',
    write: true,
    run: memberCreate,
  },
  member_delete: {
    help: 'Removes an object (object_type "user" or "package") from an organization or group id, under the same rules as member_create.',
    write: true,
    run: memberDelete,
  },
};
