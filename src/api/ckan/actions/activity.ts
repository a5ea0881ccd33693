import {
  activityRows,
  datasetActivityRows,
  datasetAtVersion,
  groupActivityRows,
  recentDatasetActivityRows,
} from '../../../domain/activity/history.ts';
import type { ActivityRow } from '../../../domain/activity/present.ts';
import { activityDict, recordedPackageDict } from '../activity-dict.ts';
import type { DetailRow } from '../../../domain/datasets/detail-query.ts';
import { unifiedDiff } from '../line-diff.ts';
import type { ActionParams } from '../params.ts';
import { required, type Action, type ActionCall } from './action.ts';
import type { PageRequest } from '../../../domain/pagination.ts';

/** ckanext-activity's actions over Almanac's history (src/domain/activity), with its visibility through time. */

/** CKAN's activity lists: 31 by default (ckan.activity_list_limit), at most 100. */
function paging(params: ActionParams) {
  const limit = params.int('limit', { min: 1, max: 100, clampMax: true }) ?? 31;
  const offset = params.int('offset', { min: 0, max: 1_000_000 }) ?? 0;
  return { limit, offset };
}

const listed = (rows: ActivityRow[]) => rows.map((row) => activityDict(row, { data: false }));

/** An activity list of one object, named by `id` (a name or id), as CKAN's *_activity_list actions take it. */
const listOf = (help: string, rows: (call: ActionCall, id: string, page: PageRequest) => Promise<{ rows: ActivityRow[] }>): Action => ({
  help,
  async run(call) {
    const id = required(call.params, 'id');
    const page = paging(call.params);
    call.params.check();
    return listed((await rows(call, id, page)).rows);
  },
});

const packageActivityList = listOf('A dataset’s activities, newest first: id=<name or id>, offset, limit (31 by default).', (c, id, page) =>
  datasetActivityRows(c.domain, c.actor, id, page),
);

const organizationActivityList = listOf(
  'An organization’s activities and its datasets’, newest first: id=<name or id>, offset, limit.',
  (c, id, page) => groupActivityRows(c.domain, c.actor, 'organization', id, page),
);

const groupActivityList = listOf('A category’s activities, newest first: id=<name or id>, offset, limit.', (c, id, page) =>
  groupActivityRows(c.domain, c.actor, 'category', id, page),
);

const recentlyChangedPackagesActivityList: Action = {
  help: 'The latest changes to datasets you may see, newest first: offset, limit.',
  async run({ domain, actor, params }) {
    const page = paging(params);
    params.check();
    return listed((await recentDatasetActivityRows(domain, actor, page)).rows);
  },
};

const activityShow: Action = {
  help: 'One activity: id=<activity id>; include_data (default true) adds the object as the change left it.',
  async run({ domain, actor, params }) {
    const id = required(params, 'id');
    const data = params.bool('include_data') ?? true;
    params.check();
    return activityDict((await activityRows(domain, actor, id)).row, { data });
  },
};

const activityDataShow: Action = {
  help: 'The object as one activity left it (package_show’s dict then): id=<activity id>.',
  async run({ domain, actor, params }) {
    const id = required(params, 'id');
    params.check();
    const { row } = await activityRows(domain, actor, id);
    return activityDict(row, { data: true }).data;
  },
};

const activityDiff: Action = {
  help: 'What one activity changed against the one before it that you may see, as a line diff of the two dicts: id=<activity id>.',
  async run({ domain, actor, params }) {
    const id = required(params, 'id');
    params.string('object_type');
    params.string('diff_type');
    params.check();
    const { row, previous } = await activityRows(domain, actor, id);
    const text = (r: ActivityRow | undefined) => (r ? JSON.stringify(activityDict(r, { data: true }).data, null, 2) : '');
    return {
      diff: unifiedDiff(text(previous), text(row), [previous?.id ?? '(nothing)', row.id]),
      activities: [...(previous ? [activityDict(previous, { data: false })] : []), activityDict(row, { data: false })],
    };
  },
};

export const activityActions: Record<string, Action> = {
  package_activity_list: packageActivityList,
  organization_activity_list: organizationActivityList,
  group_activity_list: groupActivityList,
  recently_changed_packages_activity_list: recentlyChangedPackagesActivityList,
  activity_show: activityShow,
  activity_data_show: activityDataShow,
  activity_diff: activityDiff,
};

/** package_show's `activity_id`: the dict as that activity left it. */
export async function packageAtActivity(call: ActionCall, nameOrId: string, activityId: string) {
  await datasetAtVersion(call.domain, call.actor, nameOrId, activityId);
  const { row } = await activityRows(call.domain, call.actor, activityId);
  return recordedPackageDict(row.snapshot as unknown as DetailRow);
}
