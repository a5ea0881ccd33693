import { searchCatalog } from '../../../domain/catalog/datasets.ts';
import { organizationsForUser } from '../../../domain/groups/organizations-for-user.ts';
import { showUser } from '../../../domain/users/profile.ts';
import type { MemberRole } from '../../../entities/index.ts';
import { ckanTimestamp, groupDict, packageDict } from '../package-dict.ts';
import { CkanKeyedError } from '../ckan-keys.ts';
import { required, type Action, type ActionCall } from './action.ts';

/** user_show and organization_list_for_user, over the rules the REST user search and /users/me/organizations follow. */

/** CKAN's `include_datasets` gives at most this many (user_show's documented limit). */
const USER_DATASETS_LIMIT = 50;

async function userShow({ domain, actor, params }: ActionCall) {
  const id = required(params, 'id');
  const includeDatasets = params.bool('include_datasets') ?? false;
  params.check();
  const { record, createdAt, own } = await showUser(domain, actor, id);
  // The datasets they created that the caller may see, as package_search with creator_user_id finds them.
  const created = await searchCatalog(domain, actor, {
    creator_user_id: record.id,
    private: true,
    offset: 0,
    limit: includeDatasets ? USER_DATASETS_LIMIT : 0,
    sort_by: 'name',
  });
  return {
    id: record.id,
    name: record.username,
    fullname: record.displayName,
    display_name: record.displayName ?? record.username,
    about: null,
    created: ckanTimestamp(createdAt),
    state: record.state,
    image_url: '',
    image_display_url: '',
    // The account's private side (CKAN shows it to the user and sysadmins too; its flag, here, as well).
    ...(own && 'email' in record ? { email: record.email, sysadmin: record.sysadmin } : {}),
    number_created_packages: created.count,
    ...(includeDatasets ? { datasets: created.datasets.map(packageDict) } : {}),
  };
}

/** CKAN's permissions (ckan/authz.py ROLE_PERMISSIONS) by the least role that holds each. */
const PERMISSION_ROLE: Record<string, MemberRole> = {
  read: 'member',
  manage_group: 'member',
  create_dataset: 'editor',
  update_dataset: 'editor',
  delete_dataset: 'editor',
  admin: 'admin',
  membership: 'admin',
};

async function organizationListForUser({ domain, actor, params }: ActionCall) {
  const id = params.string('id') || undefined;
  const permission = params.string('permission') || 'manage_group';
  const includeCount = params.bool('include_dataset_count') ?? false;
  params.check();
  if (!Object.hasOwn(PERMISSION_ROLE, permission)) {
    throw new CkanKeyedError([{ path: 'permission', message: `Must be one of: ${Object.keys(PERMISSION_ROLE).join(', ')}` }]);
  }
  const orgs = await organizationsForUser(domain, actor, id, PERMISSION_ROLE[permission]);
  return orgs.map((org) => {
    const { package_count, ...dict } = groupDict(org, 'organization');
    return { ...dict, capacity: org.role, ...(includeCount ? { package_count } : {}) };
  });
}

export const userActions: Record<string, Action> = {
  user_show: {
    help: 'One user by name or id, for signed-in callers; email and sysadmin only to the user and sysadmins; include_datasets=true adds the datasets they created that the caller may see.',
    run: userShow,
  },
  organization_list_for_user: {
    help:
      'The organizations where a user (id: name or id; the caller when left out; another user only for sysadmins) has a permission ' +
      '(read, manage_group: any member; create_dataset, update_dataset, delete_dataset: editors; admin, membership: admins), with their capacity.',
    run: organizationListForUser,
  },
};
