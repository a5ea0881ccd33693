import { canReadDatasetActivity, visibleActivitiesSql } from '../../policies/activities.ts';
import { can } from '../../policies/index.ts';
import { Membership, User, type GroupKind } from '../../entities/index.ts';
import type { Actor } from '../actor.ts';
import { loadVisibleGroup } from '../groups/groups.ts';
import type { DomainContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { page, type PageRequest } from '../pagination.ts';
import { orgRolesOf } from '../datasets/access.ts';
import { loadDatasetDetail } from '../datasets/detail-query.ts';
import { diffRecords } from './diff.ts';
import { activitySubject, presentActivity, recordOf, type ActivityRow } from './present.ts';

/**
 * Reading history (issue 30 §1). The triggers write it; here it is filtered by the rule of
 * src/policies/activities.ts inside SQL, so a page, its count and its diffs are what the reader may see:
 * each activity's changes are against the reader's previous visible one, so a period hidden from them
 * (a draft, a private spell) never shows, not even as the `before` of a later change.
 */

const COLUMNS = `a.id, a.seq, a.object_type, a.object_id, a.action, a.actor_id, a.harvest_run_id,
  to_char(a.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at,
  a.organization_id, a.state, a.private, a.creator_id, a.org_deleted, a.members_only, a.snapshot`;

const FROM = `activities a left join datasets d on d.id = a.object_id left join groups o on o.id = d.owner_org_id`;

async function visibleRows(ctx: DomainContext, actor: Actor, where: string, params: unknown[], req: PageRequest, extra = 0) {
  const visible = visibleActivitiesSql(actor, await orgRolesOf(ctx, actor));
  const filter = `${where} and ${visible.sql}`;
  const [rows, counted] = await Promise.all([
    ctx.em.execute<ActivityRow[]>(`select ${COLUMNS} from ${FROM} where ${filter} order by a.seq desc limit ? offset ?`, [
      ...params,
      ...visible.params,
      req.limit + extra,
      req.offset,
    ]),
    ctx.em.execute<Array<{ n: string }>>(`select count(*) as n from ${FROM} where ${filter}`, [...params, ...visible.params]),
  ]);
  return { rows, count: Number(counted[0]?.n ?? 0) };
}

/** The dataset named, as the reader may see it now, or 404 as GET /packages/{id} would answer. */
async function visibleDataset(ctx: DomainContext, actor: Actor, nameOrId: string) {
  const found = await loadDatasetDetail(ctx.em, nameOrId, actor.userId);
  if (!found || !can(actor, 'dataset:read', found.subject)) throw notFound('Dataset');
  return found;
}

/** A dataset's activity rows the reader may see, newest first, with one more than the page when there is one. */
export async function datasetActivityRows(ctx: DomainContext, actor: Actor, nameOrId: string, req: PageRequest, extra = 0) {
  const { fields } = await visibleDataset(ctx, actor, nameOrId);
  return visibleRows(ctx, actor, 'a.object_id = ?::uuid', [fields.id], req, extra);
}

/** A dataset's activities, newest first, each with what it changed. */
export async function datasetActivity(ctx: DomainContext, actor: Actor, nameOrId: string, req: PageRequest) {
  // One more than the page: the last item's changes are against the next older visible one.
  const { rows, count } = await datasetActivityRows(ctx, actor, nameOrId, req, 1);
  const results = rows.slice(0, req.limit).map((row, i) => presentActivity(row, diffRecords(recordOf(rows[i + 1]), recordOf(row))));
  return page(results, count, req);
}

/**
 * An organization's activity rows and its datasets' (those it owned then), newest first; a category's
 * own. 404 for a group the reader may not see, as its record.
 */
export async function groupActivityRows(ctx: DomainContext, actor: Actor, kind: GroupKind, nameOrId: string, req: PageRequest) {
  const { group } = await loadVisibleGroup(ctx, actor, kind, nameOrId);
  const where = kind === 'organization' ? 'a.organization_id = ?::uuid' : 'a.object_id = ?::uuid';
  return visibleRows(ctx, actor, where, [group.id], req);
}

export async function groupActivity(ctx: DomainContext, actor: Actor, kind: GroupKind, nameOrId: string, req: PageRequest) {
  const { rows, count } = await groupActivityRows(ctx, actor, kind, nameOrId, req);
  return page(
    rows.map((row) => presentActivity(row)),
    count,
    req,
  );
}

/** What one user did, newest first (what the reader may see of it); 404 for no such user. */
export async function userActivity(ctx: DomainContext, actor: Actor, userId: string, req: PageRequest) {
  if (!isUuid(userId) || !(await ctx.em.count(User, { id: userId }))) throw notFound('User');
  const { rows, count } = await visibleRows(ctx, actor, 'a.actor_id = ?::uuid', [userId], req);
  return page(
    rows.map((row) => presentActivity(row)),
    count,
    req,
  );
}

/** The latest changes to datasets across the catalog (CKAN's recently_changed_packages_activity_list). */
export const recentDatasetActivityRows = (ctx: DomainContext, actor: Actor, req: PageRequest) =>
  visibleRows(ctx, actor, "a.object_type = 'dataset'", [], req);

export async function recentDatasetActivity(ctx: DomainContext, actor: Actor, req: PageRequest) {
  const { rows, count } = await recentDatasetActivityRows(ctx, actor, req);
  return page(
    rows.map((row) => presentActivity(row)),
    count,
    req,
  );
}

/**
 * One activity with its changes against the reader's previous visible activity of the same object;
 * 404 for an activity the reader may not see, exactly as for one that does not exist.
 */
export async function getActivity(ctx: DomainContext, actor: Actor, activityId: string) {
  const { row, previous } = await activityRows(ctx, actor, activityId);
  const members = row.object_type !== 'dataset' && (await mayReadMembers(ctx, actor, row.object_id));
  return presentActivity(row, diffRecords(recordOf(previous, members), recordOf(row, members)));
}

/** Whether the reader may see who belongs to the group (its members, sysadmins): its history's member changes are theirs. */
async function mayReadMembers(ctx: DomainContext, actor: Actor, groupId: string) {
  const membership = actor.userId ? await ctx.em.findOne(Membership, { group: groupId, user: actor.userId }) : null;
  // Only an active group's history is shown (src/policies/activities.ts).
  return can(actor, 'group:read-members', { state: 'active', role: membership?.role ?? null });
}

/**
 * The activity's row and the reader's previous visible one of the same object, for entry points that
 * shape the recorded records their own way (CKAN's activity_show and activity_diff).
 */
export async function activityRows(ctx: DomainContext, actor: Actor, activityId: string) {
  if (!isUuid(activityId)) throw notFound('Activity');
  const roles = await orgRolesOf(ctx, actor);
  const visible = visibleActivitiesSql(actor, roles);
  const [row] = await ctx.em.execute<ActivityRow[]>(`select ${COLUMNS} from ${FROM} where a.id = ?::uuid and ${visible.sql}`, [
    activityId,
    ...visible.params,
  ]);
  if (!row) throw notFound('Activity');
  const [previous] = await ctx.em.execute<ActivityRow[]>(
    `select ${COLUMNS} from ${FROM} where a.object_id = ?::uuid and a.seq < ? and ${visible.sql} order by a.seq desc limit 1`,
    [row.object_id, row.seq, ...visible.params],
  );
  return { row, previous };
}

/**
 * The dataset's record as one of its activities left it (`?version=<activityId>`, CKAN's package_show
 * with `activity_id`): the same presenter as the live record, over the row the activity recorded.
 */
export async function datasetAtVersion(ctx: DomainContext, actor: Actor, nameOrId: string, activityId: string) {
  const now = await visibleDataset(ctx, actor, nameOrId);
  if (!isUuid(activityId)) throw notFound('Version');
  const [row] = await ctx.em.execute<ActivityRow[]>(`select ${COLUMNS} from ${FROM} where a.id = ?::uuid and a.object_id = ?::uuid`, [
    activityId,
    now.fields.id,
  ]);
  const roles = await orgRolesOf(ctx, actor);
  if (!row || !row.snapshot || !canReadDatasetActivity(actor, now.subject, activitySubject(row, roles))) throw notFound('Version');
  return recordOf(row)!;
}
