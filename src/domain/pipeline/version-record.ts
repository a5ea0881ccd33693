import { diffSchemas } from './schema-diff.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Resource } from '../../entities/index.ts';
import type { TableSchema } from '../../tabular/column-schema.ts';
import { fetchedCopyOf, liveSourceKey } from '../resources/stored-objects.ts';
import { servedPreviewKey, type PreviewRecord } from './preview-record.ts';

/**
 * The rows of `resource_versions` (issue 30 §2). Every write here runs in a transaction holding the
 * resource's row lock (the preview step's `markStep`, `invalidateOutputs`), so the versions of one
 * resource are numbered one writer at a time and a version exists exactly when the record that served
 * its preview committed.
 */

type LockedResource = Pick<Resource, 'id' | 'url' | 'urlType' | 'hash' | 'size' | 'extras'>;

interface VersionRow {
  n: number;
  sourceKey: string;
  sourceUrl: string | null;
  previewKey: string;
  sha256: string | null;
  schema: TableSchema;
}

/** The schema's changes from the version before it; none for a first version. */
const changesFrom = (before: VersionRow | undefined, schema: TableSchema) =>
  before ? JSON.stringify(diffSchemas(before.schema, schema)) : null;

const lockedResource = async (tx: EntityManager, resourceId: string) =>
  (
    await tx.execute<LockedResource[]>(`select id, url, url_type as "urlType", hash, size, extras from resources where id = ? for update`, [
      resourceId,
    ])
  )[0] ?? null;

const versionRows = (tx: EntityManager, resourceId: string) =>
  tx.execute<VersionRow[]>(
    `select n, source_key as "sourceKey", source_url as "sourceUrl", preview_key as "previewKey", sha256, schema from resource_versions where resource_id = ? order by n`,
    [resourceId],
  );

/** The bytes the resource serves now, as a version describes them. */
function sourceOf(resource: LockedResource) {
  if (resource.urlType === 'upload') {
    return { key: liveSourceKey(resource), url: null, sha256: resource.hash ?? null, size: resource.size ?? null };
  }
  const fetched = fetchedCopyOf(resource);
  return {
    key: liveSourceKey(resource),
    url: fetched?.url ?? resource.url ?? null,
    sha256: fetched?.sha256 ?? null,
    size: fetched?.bytes ?? null,
  };
}

/**
 * A version is one set of bytes: an upload's file (each upload its own key), or what a link answered
 * (each fetch its own copy, so told apart by URL and sha256).
 */
const sameBytes = (version: VersionRow, source: ReturnType<typeof sourceOf>) =>
  source.url === null
    ? version.sourceKey === source.key
    : version.sourceUrl === source.url && version.sha256 !== null && version.sha256 === source.sha256;

async function insertVersion(
  tx: EntityManager,
  resourceId: string,
  n: number,
  source: ReturnType<typeof sourceOf>,
  preview: { key: string; schema: TableSchema; createdAt?: string },
  before?: VersionRow,
) {
  // The activity that brought these bytes: the first recorded state of the dataset where the resource
  // had this file's hash (an upload) or this URL (a link).
  const brought = source.url === null ? { hash: source.sha256 } : { url: source.url };
  await tx.execute(
    `insert into resource_versions (resource_id, n, source_key, source_url, preview_key, schema, sha256, size, row_count, created_at, schema_diff, activity_id)
     values (?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?::jsonb,
       (select a.id from activities a join resources r on a.object_id = r.dataset_id
         where r.id = ?::uuid and a.snapshot->'resources' @> jsonb_build_array(?::jsonb || jsonb_build_object('id', r.id))
         order by a.seq limit 1))
     on conflict do nothing`,
    [
      resourceId,
      n,
      source.key,
      source.url,
      preview.key,
      JSON.stringify(preview.schema),
      source.sha256,
      source.size,
      preview.schema.rowCount,
      preview.createdAt ?? new Date().toISOString(),
      changesFrom(before, preview.schema),
      resourceId,
      JSON.stringify(brought),
    ],
  );
}

/**
 * A preview served from before versions existed becomes version 1 the first time the resource is
 * versioned (a new run's preview, or new bytes replacing it), described by the record as it stands.
 */
async function keepPreviousPreview(tx: EntityManager, resource: LockedResource, rows: VersionRow[]) {
  const preview = resource.extras.preview as PreviewRecord | null | undefined;
  if (rows.length || !preview?.schema || !resource.url) return rows;
  const key = servedPreviewKey(resource.id, preview);
  await insertVersion(tx, resource.id, 1, sourceOf(resource), { key, schema: preview.schema, createdAt: preview.createdAt });
  return versionRows(tx, resource.id);
}

/**
 * Called by the preview step in the transaction that makes `preview` the served one. A retried step
 * finds its own version (the preview key is the run's) and adds nothing. A run over the bytes the newest
 * version already holds (a re-run) replaces that version's preview (and a link's copy, whose key it adds
 * to `replaced`, for removal after the commit) rather than adding one. Nothing is
 * recorded when the bytes changed after the run read them: a newer run is on its way.
 */
export async function recordVersion(
  tx: EntityManager,
  resourceId: string,
  readFrom: string,
  preview: { key: string; schema: TableSchema; createdAt: string },
  replaced: string[],
) {
  const resource = await lockedResource(tx, resourceId);
  if (!resource || liveSourceKey(resource) !== readFrom) return;
  let rows = await versionRows(tx, resourceId);
  if (rows.some((row) => row.previewKey === preview.key)) return;
  rows = await keepPreviousPreview(tx, resource, rows);
  const source = sourceOf(resource);
  const newest = rows.at(-1);
  if (newest && sameBytes(newest, source)) {
    if (newest.sourceKey !== source.key) replaced.push(newest.sourceKey);
    await tx.execute(
      `update resource_versions set source_key = ?, preview_key = ?, schema = ?::jsonb, row_count = ?, schema_diff = ?::jsonb where resource_id = ? and n = ?`,
      [
        source.key,
        preview.key,
        JSON.stringify(preview.schema),
        preview.schema.rowCount,
        changesFrom(rows.at(-2), preview.schema),
        resourceId,
        newest.n,
      ],
    );
    return;
  }
  await insertVersion(tx, resourceId, (newest?.n ?? 0) + 1, source, preview, newest);
}

/** Before new bytes replace the served ones: a preview served from before versions existed is kept as version 1. */
export async function keepServedAsVersion(tx: EntityManager, resourceId: string) {
  const resource = await lockedResource(tx, resourceId);
  if (resource) await keepPreviousPreview(tx, resource, await versionRows(tx, resourceId));
}

/** The keys, of those given, that no version names: those may go. */
export async function unversionedKeys(em: EntityManager, resourceId: string, keys: string[]) {
  if (!keys.length) return keys;
  const named = await em.execute<{ key: string }[]>(
    `select source_key as key from resource_versions where resource_id = ? union select preview_key from resource_versions where resource_id = ?`,
    [resourceId, resourceId],
  );
  const kept = new Set(named.map((row) => row.key));
  return keys.filter((key) => !kept.has(key));
}
