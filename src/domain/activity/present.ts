import type { MemberRole } from '../../entities/index.ts';
import type { DatasetSubject, OrgRoles } from '../../policies/datasets.ts';
import { toFields, type DetailRow } from '../datasets/detail-query.ts';
import { presentDataset } from '../datasets/present.ts';
import type { FieldChange } from './diff.ts';

export const ACTIVITY_ACTIONS = ['created', 'changed', 'published', 'deleted', 'restored', 'purged'] as const;
export type ActivityAction = (typeof ACTIVITY_ACTIONS)[number];

/** An `activities` row as history.ts selects it. */
export interface ActivityRow {
  id: string;
  seq: string;
  object_type: 'dataset' | 'organization' | 'category';
  object_id: string;
  action: ActivityAction;
  actor_id: string | null;
  harvest_run_id: string | null;
  created_at: string;
  organization_id: string | null;
  state: string | null;
  private: boolean | null;
  creator_id: string | null;
  org_deleted: boolean;
  members_only: boolean;
  snapshot: Record<string, unknown> | null;
}

/**
 * A group's snapshot (`to_jsonb(groups)` and its members) as its record gives it; with `members`, its
 * members as `{userId: role}`, for readers who may see them (snapshots from before members were recorded
 * have none).
 */
function groupRecord(row: Record<string, unknown>, members: boolean) {
  const record = {
    id: row.id,
    name: row.name,
    title: row.title,
    description: row.description ?? null,
    imageUrl: row.image_url ?? null,
    state: row.state,
  };
  if (!members || !Array.isArray(row.members)) return record;
  return { ...record, members: Object.fromEntries((row.members as Array<{ user: string; role: string }>).map((m) => [m.user, m.role])) };
}

/**
 * The record an activity left: a dataset's as GET /packages/{id} gives it, a group's as its own (its members
 * only with `members`); null once purged.
 */
export function recordOf(row: ActivityRow | undefined, members = false): Record<string, unknown> | null {
  if (!row?.snapshot) return null;
  if (row.object_type !== 'dataset') return groupRecord(row.snapshot, members);
  const detail = row.snapshot as unknown as DetailRow;
  return presentDataset(toFields(detail), { resources: detail.resources ?? [] }) as unknown as Record<string, unknown>;
}

/** What the read rule decided on then, with the reader's role in that organization today. */
export const activitySubject = (row: ActivityRow, roles: OrgRoles): DatasetSubject => ({
  state: (row.state ?? 'active') as DatasetSubject['state'],
  private: row.private ?? false,
  creatorId: row.creator_id,
  orgRole: row.organization_id ? ((roles.get(row.organization_id) as MemberRole | undefined) ?? null) : null,
  orgDeleted: row.org_deleted,
});

export function presentActivity(row: ActivityRow, changes?: FieldChange[]) {
  return {
    id: row.id,
    objectType: row.object_type,
    objectId: row.object_id,
    action: row.action,
    /** The signed-in user who made the change; null for a harvest run's or the system's. */
    userId: row.actor_id,
    harvestRunId: row.harvest_run_id,
    organizationId: row.organization_id,
    /** The object's name and title as the change left them (as they were last, once purged). */
    objectName: (row.snapshot?.name as string | undefined) ?? null,
    objectTitle: (row.snapshot?.title as string | undefined) ?? null,
    createdAt: row.created_at,
    ...(changes ? { changes } : {}),
  };
}
