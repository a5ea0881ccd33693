import { showCatalogGroup } from '../../../domain/catalog/datasets.ts';
import { listGroups } from '../../../domain/groups/groups.ts';
import { invalidParameters } from '../../../domain/errors.ts';
import { groupDict, packageDict } from '../package-dict.ts';
import { fullGroupDict } from './group-show.ts';
import { MAX_OFFSET } from '../params.ts';
import { required, type Action, type ActionCall } from './action.ts';

/** organization_list, organization_show, group_list, group_show (CKAN's "group" is Almanac's category). */

type Kind = 'organization' | 'category';

/** Datasets a group_show gives at most (CKAN's search row cap). */
const MAX_GROUP_DATASETS = 1000;
/** CKAN's `ckan.group_and_organization_list_all_fields_max`. */
const ALL_FIELDS_LIMIT = 25;
/** CKAN's `ckan.group_and_organization_list_max`: a larger limit is capped to it. */
const MAX_LIST_LIMIT = 1000;

async function groupList(kind: Kind, { domain, actor, params }: ActionCall) {
  const allFields = params.bool('all_fields') ?? false;
  const limit = params.int('limit', { min: 0, max: MAX_LIST_LIMIT, clampMax: true });
  const offset = params.int('offset', { min: 0, max: MAX_OFFSET }) ?? 0;
  const q = params.string('q');
  const sort = params.string('sort')?.trim();
  params.check();
  // Almanac lists groups by name; a title order is close, but not the same, so only name is accepted.
  if (sort && !/^name(\s+asc)?$/i.test(sort)) {
    throw invalidParameters([{ path: 'sort', message: 'Only "name asc" is supported' }]);
  }
  const found = await listGroups(domain, actor, kind, { q }, { offset, limit: limit ?? (allFields ? ALL_FIELDS_LIMIT : 100_000) });
  return allFields ? found.results.map((g) => groupDict(g, kind)) : found.results.map((g) => g.name);
}

async function groupShow(kind: Kind, { domain, actor, params }: ActionCall) {
  const id = required(params, 'id');
  const includeDatasets = params.bool('include_datasets') ?? false;
  const includeUsers = params.bool('include_users') ?? true;
  params.check();
  const { group, datasets } = await showCatalogGroup(domain, actor, kind, id, includeDatasets ? { limit: MAX_GROUP_DATASETS } : null);
  return {
    ...(await fullGroupDict(domain, actor, kind, group, { includeUsers })),
    ...(includeDatasets ? { packages: datasets.map(packageDict) } : {}),
  };
}

export const organizationList: Action = {
  help: 'Names of the active organizations, by name; all_fields=true gives their dicts with package_count.',
  run: (call) => groupList('organization', call),
};
export const groupListAction: Action = {
  help: 'Names of the active groups (Almanac categories), by name; all_fields=true gives their dicts with package_count.',
  run: (call) => groupList('category', call),
};
export const organizationShow: Action = {
  help: 'One organization by name or id with package_count; include_datasets=true adds its datasets the caller may see; users (its members) for its members and sysadmins.',
  run: (call) => groupShow('organization', call),
};
export const groupShowAction: Action = {
  help: 'One group (Almanac category) by name or id with package_count; include_datasets=true adds its datasets the caller may see; users (its members) for its members and sysadmins.',
  run: (call) => groupShow('category', call),
};
