import { activityActions } from './activity.ts';
import { datastoreActions } from './datastore.ts';
import { organizationWriteActions } from './organization-writes.ts';
import { packageWriteActions } from './package-writes.ts';
import { resourceShow } from './resources.ts';
import { groupListAction, groupShowAction, organizationList, organizationShow } from './groups.ts';
import { packageList, packageSearch, packageShow } from './packages.ts';
import { helpShow, licenseList, siteRead, statusShow } from './site.ts';
import { tagList } from './tags.ts';
import type { Action } from './action.ts';

/**
 * Every action the API answers, by CKAN name: the read actions here, the others by area in their own
 * files; the audit report expects each to have run (test/run.ts).
 */
export const ckanActions: Record<string, Action> = {
  package_search: packageSearch,
  package_show: packageShow,
  package_list: packageList,
  organization_list: organizationList,
  organization_show: organizationShow,
  group_list: groupListAction,
  group_show: groupShowAction,
  tag_list: tagList,
  resource_show: resourceShow,
  status_show: statusShow,
  site_read: siteRead,
  license_list: licenseList,
  help_show: helpShow(() => ckanActions),
  ...datastoreActions,
  ...activityActions,
  ...packageWriteActions,
  ...organizationWriteActions,
};
