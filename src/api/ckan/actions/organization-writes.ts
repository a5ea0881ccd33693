import { createGroup, getGroup, replaceGroup, softDeleteEmptyOrganization, softDeleteGroup } from '../../../domain/groups/groups.ts';
import { replaceMembers } from '../../../domain/groups/member-sets.ts';
import type { GroupKind } from '../../../entities/index.ts';
import { required, type Action, type ActionCall } from './action.ts';
import { withCkanKeys } from '../ckan-keys.ts';
import { GROUP_KEYS, readGroupInput, type GroupInput } from './group-input.ts';
import { fullGroupDict } from './group-show.ts';
import { memberWriteActions } from './member-writes.ts';
import { userActions } from './users.ts';

/**
 * organization_create/update/patch/delete and group_* (CKAN's groups are Almanac's categories) over the
 * domain functions POST, PUT and DELETE /organizations and /groups call, under their rules: creating is
 * for sysadmins, changing and deleting for the group's admins and sysadmins. Each answers with the
 * group's show dict, as CKAN does; delete with null.
 */

/** The fields and the member list in one transaction: a refused member list leaves the group unwritten. */
async function writeGroup(
  { domain, actor }: ActionCall,
  kind: GroupKind,
  input: GroupInput,
  write: (tx: ActionCall['domain']) => Promise<{ id: string }>,
) {
  const record = await withCkanKeys(GROUP_KEYS, () =>
    domain.em.transactional(async (em) => {
      const tx = { ...domain, em };
      const written = await write(tx);
      if (input.users) await replaceMembers(tx, actor, kind, written.id, input.users);
      return written;
    }),
  );
  // Read back through a fresh identity map: the request's own one holds the group and roles as they were.
  const fresh = { ...domain, em: domain.em.fork() };
  return fullGroupDict(fresh, actor, kind, await getGroup(fresh, actor, kind, record.id), { includeUsers: true });
}

async function groupCreate(kind: GroupKind, call: ActionCall) {
  const input = readGroupInput(call.params.raw, kind, { create: true });
  return writeGroup(call, kind, input, (tx) => createGroup(tx, call.actor, kind, { ...input.fields, id: input.id }));
}

/**
 * `update` replaces the fields (one left out is cleared; the name, when left out, is kept as CKAN 2.10+
 * keeps it); `patch` is show + merge + update, as CKAN derives it.
 */
async function groupUpdate(kind: GroupKind, call: ActionCall, mode: 'update' | 'patch') {
  const { domain, actor, params } = call;
  const id = required(params, 'id');
  params.check();
  const current = await getGroup(domain, actor, kind, id);
  const shown =
    mode === 'patch'
      ? { name: current.name, title: current.title, description: current.description ?? '', image_url: current.imageUrl ?? '' }
      : { name: current.name };
  const input = readGroupInput({ ...shown, ...params.raw }, kind, { create: false });
  return writeGroup(call, kind, input, (tx) => replaceGroup(tx, actor, kind, current.id, input.fields));
}

async function groupDelete(kind: GroupKind, { domain, actor, params }: ActionCall) {
  const id = required(params, 'id');
  params.check();
  if (kind === 'organization') await softDeleteEmptyOrganization(domain, actor, id);
  else await softDeleteGroup(domain, actor, kind, id);
  return null;
}

function groupWrites(kind: GroupKind): Record<string, Action> {
  const ckan = kind === 'organization' ? 'organization' : 'group';
  const what = kind === 'organization' ? 'an organization' : 'a group (Almanac category)';
  const admins = kind === 'organization' ? "the organization's admins" : "the group's admins";
  return {
    [`${ckan}_create`]: {
      help: `Creates ${what} (sysadmins): name, title, description, image_url, id (a UUID, optional), users [{name, capacity}].`,
      write: true,
      run: (call) => groupCreate(kind, call),
    },
    [`${ckan}_update`]: {
      help: `Replaces the fields of ${what} by id (${admins} and sysadmins); users, when given, replaces its members.`,
      write: true,
      run: (call) => groupUpdate(kind, call, 'update'),
    },
    [`${ckan}_patch`]: {
      help: `Changes only the fields given of ${what} by id (${admins} and sysadmins).`,
      write: true,
      run: (call) => groupUpdate(kind, call, 'patch'),
    },
    [`${ckan}_delete`]: {
      help: `Deletes ${what} by id (${admins} and sysadmins); a sysadmin restores it through the REST API.`,
      write: true,
      run: (call) => groupDelete(kind, call),
    },
  };
}

/** CKAN's write actions on organizations and groups and their members, with user_show and organization_list_for_user. */
export const organizationWriteActions: Record<string, Action> = {
  ...groupWrites('organization'),
  ...groupWrites('category'),
  ...memberWriteActions,
  ...userActions,
};
