import type { DetailRow } from '../../domain/datasets/detail-query.ts';
import { toFields } from '../../domain/datasets/detail-query.ts';
import type { CatalogDataset } from '../../domain/catalog/datasets.ts';
import type { ActivityRow } from '../../domain/activity/present.ts';
import { packageDict } from './package-dict.ts';

/**
 * CKAN's activity dicts (ckanext-activity): `activity_type` as CKAN names it, the timestamp in its form,
 * and `data` with the object as the change left it, as package_show (or group_show) gave it then.
 */

const NOUN = { dataset: 'package', organization: 'organization', category: 'group' } as const;
const VERB: Record<string, string> = { created: 'new', purged: 'deleted', deleted: 'deleted' };

const collection = <T>(items: T[]) => ({ getItems: () => items });
const date = (value: unknown) => (typeof value === 'string' ? new Date(value) : null);

/** The recorded row as the entities packageDict reads: the same dict as package_show's, for that moment. */
export function recordedPackageDict(row: DetailRow) {
  const fields = toFields(row);
  const dataset = {
    ...fields,
    tags: collection(row.tags.map((t) => ({ id: t.name, name: t.name }))),
    groups: collection(row.groups.map((g) => ({ ...g, description: null, imageUrl: null }))),
    createdAt: date(fields.createdAt),
    updatedAt: date(fields.updatedAt),
    harvestedAt: date(fields.harvestedAt),
  };
  const organization = row.org_id
    ? { id: row.org_id, name: row.org_name, title: row.org_title, state: row.org_state ?? 'active', createdAt: dataset.createdAt }
    : null;
  const resources = (row.resources ?? []).map((r) => ({ ...r, createdAt: date(r.createdAt), updatedAt: date(r.updatedAt) }));
  return packageDict({ dataset, organization, resources } as unknown as CatalogDataset);
}

function recordedData(row: ActivityRow): Record<string, unknown> {
  const noun = NOUN[row.object_type];
  if (!row.snapshot) return { [noun]: { id: row.object_id } };
  if (row.object_type === 'dataset') return { package: recordedPackageDict(row.snapshot as unknown as DetailRow) };
  const g = row.snapshot;
  return { group: { id: g.id, name: g.name, title: g.title, description: g.description ?? '', state: g.state, type: noun } };
}

export function activityDict(row: ActivityRow, opts: { data: boolean }) {
  return {
    id: row.id,
    timestamp: row.created_at.replace('Z', '000'),
    user_id: row.actor_id,
    object_id: row.object_id,
    activity_type: `${VERB[row.action] ?? 'changed'} ${NOUN[row.object_type]}`,
    data: opts.data
      ? recordedData(row)
      : { [NOUN[row.object_type]]: { id: row.object_id, name: row.snapshot?.name, title: row.snapshot?.title } },
  };
}
