import type { EntityManager } from '@mikro-orm/postgresql';
import type { DatasetState, MemberRole } from '../../entities/index.ts';
import type { DatasetSubject } from '../../policies/datasets.ts';
import { pgArray } from '../../db.ts';
import { isUuid } from '../ids.ts';
import { RESOURCE_FIELDS } from '../resources/field-table.ts';
import type { DatasetMetadataColumns } from '../metadata/record-io.ts';
import type { ResourceFields } from '../resources/present.ts';
import { columnOf, DATASET_FIELDS, fieldNames, fieldValues, type DatasetFieldValues } from './field-table.ts';
import type { DatasetFields } from './present.ts';

/** A timestamp as the records print it: UTC, milliseconds (truncated, as a JavaScript Date holds it), `Z`. */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The resource `r` as presentResource reads it (ResourceFields), built in SQL. */
export const RESOURCE_JSON = `json_build_object(
  'id', r.id, 'dataset', json_build_object('id', r.dataset_id),
  ${fieldNames(RESOURCE_FIELDS)
    .map((name) => `'${name}', r.${columnOf(name)}`)
    .join(', ')},
  'url', r.url, 'urlType', r.url_type, 'size', r.size, 'hash', r.hash, 'position', r.position, 'extras', r.extras, 'metadata', r.metadata, 'customExtras', r.custom_extras, 'customFields', r.custom_fields,
  'createdAt', ${iso('r.created_at')}, 'updatedAt', ${iso('r.updated_at')})`;

/** What the read policy decides on, as a statement over datasets `d` and their organization `o` selects it. */
export interface SubjectRow {
  state: DatasetState;
  private: boolean;
  creator_id: string | null;
  org_state: string | null;
  org_role: MemberRole | null;
}

export const subjectOfRow = (row: SubjectRow): DatasetSubject => ({
  state: row.state,
  private: row.private,
  creatorId: row.creator_id,
  orgRole: row.org_role,
  orgDeleted: row.org_state === 'deleted',
});

/** The caller's (the first parameter) role in the organization `o`, as orgRolesOf counts it: active organizations only. */
export const CALLER_ROLE_SQL = `(select m.role from memberships m
  where m.user_id = ?::uuid and m.group_id = o.id and o.kind = 'organization' and o.state = 'active')`;

/**
 * A dataset's detail and the caller's role in its organization in one statement and one round trip: its
 * row, organization, tags, categories and resources aggregated as JSON, ready for presentDataset. Reads
 * are the most frequent request; hydrating entities and a query per relation cost several times the
 * database's own work (issue 19, bench reads).
 */
const DETAIL_SQL = (where: string, opts: { resources: boolean; callerRole?: string }) => `
  select d.id, d.name, ${FIELD_COLUMNS}, d.metadata, d.extras, d.custom_fields as "customFields", d.state, d.creator_id, d.deletion_incomplete, d.harvest_source_id,
         d.harvest_remote_id, d.harvest_remote_url, ${iso('d.harvested_at')} as harvested_at,
         ${iso('d.created_at')} as created_at, ${iso('d.updated_at')} as updated_at, ${iso('d.published_at')} as published_at,
         o.id as org_id, o.name as org_name, o.title as org_title, o.state as org_state,
         ${opts.callerRole ?? CALLER_ROLE_SQL} as org_role,
         coalesce((select json_agg(json_build_object('name', t.name))
                      from dataset_tags dt join tags t on t.id = dt.tag_id where dt.dataset_id = d.id), '[]') as tags,
         coalesce((select json_agg(json_build_object('id', g.id, 'name', g.name, 'title', g.title))
                      from dataset_groups dg join groups g on g.id = dg.group_id where dg.dataset_id = d.id), '[]') as groups
         ${opts.resources ? `, coalesce((select json_agg(${RESOURCE_JSON} order by r.position) from resources r where r.dataset_id = d.id), '[]') as resources` : ''}
    from datasets d left join groups o on o.id = d.owner_org_id
   where ${where}`;

/** The table's fields under their own names, so the row holds them as the record does. */
const FIELD_COLUMNS = fieldNames(DATASET_FIELDS)
  .map((name) => `d.${columnOf(name)} as "${name}"`)
  .join(', ');

/**
 * A dataset's detail row as of now, for the activity its change records (src/domain/activity): the same
 * statement as the read, so an old version is presented by the same code as the live record. No caller:
 * the role is decided when the activity is read.
 */
export const SNAPSHOT_SQL = DETAIL_SQL('d.id = $1', { resources: true, callerRole: 'null::varchar' });

export interface DetailRow
  extends DatasetFieldValues, SubjectRow, Omit<DatasetMetadataColumns, 'temporalStart' | 'temporalEnd' | 'spatialBox'> {
  id: string;
  name: string;
  deletion_incomplete: boolean;
  harvest_source_id: string | null;
  harvest_remote_id: string | null;
  harvest_remote_url: string | null;
  harvested_at: string | null;
  created_at: string;
  updated_at: string;
  published_at: string | null;
  org_id: string | null;
  org_name: string | null;
  org_title: string | null;
  tags: Array<{ name: string }>;
  groups: Array<{ id: string; name: string; title: string }>;
  resources?: ResourceFields[];
}

export interface DatasetDetail {
  fields: DatasetFields;
  resources: ResourceFields[];
  /** What the policies decide on, with the caller's role in the owning organization. */
  subject: DatasetSubject;
}

/** The dataset named by id or name with what its record and its read policy need; null when there is none. */
export async function loadDatasetDetail(em: EntityManager, nameOrId: string, userId: string | null): Promise<DatasetDetail | null> {
  const [row] = await em.execute<DetailRow[]>(DETAIL_SQL(`d.${isUuid(nameOrId) ? 'id' : 'name'} = ?`, { resources: true }), [
    userId,
    nameOrId,
  ]);
  if (!row) return null;
  return {
    fields: toFields(row),
    resources: row.resources ?? [],
    subject: subjectOfRow(row),
  };
}

/**
 * The records of a listing's page, in the order of `ids`, in one statement: a page used to be a query
 * for the rows and one per relation (organization, tags, categories). The caller has already applied
 * visibility: these are ids its filtered query returned.
 */
export async function loadDatasetsFields(em: EntityManager, ids: string[]): Promise<DatasetFields[]> {
  if (ids.length === 0) return [];
  const rows = await em.execute<DetailRow[]>(DETAIL_SQL('d.id = any(?::uuid[])', { resources: false }), [null, pgArray(ids)]);
  const byId = new Map(rows.map((row) => [row.id, toFields(row)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export function toFields(row: DetailRow): DatasetFields {
  return {
    id: row.id,
    name: row.name,
    ...fieldValues(DATASET_FIELDS, row),
    metadata: row.metadata,
    extras: row.extras,
    customFields: row.customFields,
    ownerOrg: row.org_id ? { id: row.org_id, name: row.org_name!, title: row.org_title! } : null,
    state: row.state,
    tags: row.tags,
    groups: row.groups,
    creator: row.creator_id ? { id: row.creator_id } : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    publishedAt: row.published_at,
    deletionIncomplete: row.deletion_incomplete,
    harvestSource: row.harvest_source_id ? { id: row.harvest_source_id } : null,
    harvestRemoteId: row.harvest_remote_id,
    harvestRemoteUrl: row.harvest_remote_url,
    harvestedAt: row.harvested_at,
  };
}
