import { z } from 'zod';
import { datasetActivity, getActivity, groupActivity, recentDatasetActivity, userActivity } from '../../../domain/activity/history.ts';
import { ACTIVITY_ACTIONS } from '../../../domain/activity/present.ts';
import { defineRoute } from '../../../http/route.ts';
import { listOf, nameOrIdParams, paging } from '../../../http/schemas.ts';

/** History (issue 30 §1): what changed, when and by whom, as the reader may see it through time. */

const FieldChange = z.object({ path: z.string(), before: z.unknown(), after: z.unknown() });

export const ActivityRecord = z.object({
  id: z.string(),
  objectType: z.enum(['dataset', 'organization', 'category']),
  objectId: z.string(),
  action: z.enum(ACTIVITY_ACTIONS),
  userId: z.string().nullable(),
  harvestRunId: z.string().nullable(),
  organizationId: z.string().nullable(),
  objectName: z.string().nullable(),
  objectTitle: z.string().nullable(),
  createdAt: z.string(),
  changes: z.array(FieldChange).optional().describe('Field by field, against the previous activity you may see'),
});

const Paging = z.object(paging);
const ActivityList = listOf(ActivityRecord);

export const activityRoutes = [
  defineRoute({
    method: 'get',
    path: '/packages/{nameOrId}/activity',
    tag: 'activity',
    access: 'public',
    summary:
      'A dataset’s changes, newest first, each with its field-by-field diff; only the periods you could see then (a draft’s to its editors, a private spell to its organization)',
    params: nameOrIdParams,
    query: Paging,
    response: ActivityList,
    handle: ({ domain, actor, params, query }) => datasetActivity(domain, actor, params.nameOrId, query),
  }),
  defineRoute({
    method: 'get',
    path: '/activity',
    tag: 'activity',
    access: 'public',
    summary: 'The latest changes to datasets across the catalog that you may see',
    query: Paging,
    response: ActivityList,
    handle: ({ domain, actor, query }) => recentDatasetActivity(domain, actor, query),
  }),
  defineRoute({
    method: 'get',
    path: '/activity/{id}',
    tag: 'activity',
    access: 'public',
    summary: 'One change with its diff against the previous one you may see; 404 for one you may not',
    params: z.object({ id: z.string().min(1).max(200) }),
    response: ActivityRecord,
    handle: ({ domain, actor, params }) => getActivity(domain, actor, params.id),
  }),
  defineRoute({
    method: 'get',
    path: '/organizations/{nameOrId}/activity',
    tag: 'activity',
    access: 'public',
    summary: 'An organization’s changes and its datasets’, newest first',
    params: nameOrIdParams,
    query: Paging,
    response: ActivityList,
    handle: ({ domain, actor, params, query }) => groupActivity(domain, actor, 'organization', params.nameOrId, query),
  }),
  defineRoute({
    method: 'get',
    path: '/groups/{nameOrId}/activity',
    tag: 'activity',
    access: 'public',
    summary: 'A category’s changes, newest first',
    params: nameOrIdParams,
    query: Paging,
    response: ActivityList,
    handle: ({ domain, actor, params, query }) => groupActivity(domain, actor, 'category', params.nameOrId, query),
  }),
  defineRoute({
    method: 'get',
    path: '/users/{id}/activity',
    tag: 'activity',
    access: 'public',
    summary: 'What one user changed, newest first, as far as you may see it',
    params: z.object({ id: z.string().min(1).max(200) }),
    query: Paging,
    response: ActivityList,
    handle: ({ domain, actor, params, query }) => userActivity(domain, actor, params.id, query),
  }),
];
