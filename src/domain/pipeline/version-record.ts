import { diffSchemas, type SchemaDiff } from './schema-diff.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Resource } from '../../entities/index.ts';
import type { TableSchema } from '../../tabular/column-schema.ts';
import { servedVersionOf, type VersionReview } from '../resources/version-retention.ts';
import { completedUploadOf, fetchedCopyOf, liveSourceKey, type CompletedUpload, type FetchedCopy } from '../resources/stored-objects.ts';
import { servedPreviewKey, type PreviewRecord } from './preview-record.ts';

/**
 * The rows of `resource_versions` (issue 30 §2) and the schema-change hold (§3). Every write here runs in a
 * transaction holding the resource's row lock (the preview step's `markStep`, `invalidateOutputs`, a
 * review), so the versions of one resource are numbered one writer at a time and a version exists exactly
 * when the record that served (or held) its preview committed.
 */

type LockedResource = Pick<Resource, 'id' | 'url' | 'urlType' | 'hash' | 'size' | 'mimetype' | 'extras'> & {
  /** Holding applies to published datasets a person edits: a harvested one is its source's to change. */
  holdable: boolean;
};

/** A preview as the preview step records it. */
export type MadePreview = PreviewRecord & { key: string; schema: TableSchema };

/**
 * What the resource's record says of a version's bytes and preview while it serves them
 * (`resource_versions.served`), so that it can be served again: the one in place while a newer one is
 * held, or a held one once accepted.
 */
interface ServedState {
  upload?: CompletedUpload | null;
  fetched?: FetchedCopy | null;
  mimetype?: string | null;
  preview: PreviewRecord;
}

export interface VersionRow {
  n: number;
  sourceKey: string;
  sourceUrl: string | null;
  previewKey: string;
  sha256: string | null;
  size: number | null;
  schema: TableSchema;
  schemaDiff: SchemaDiff | null;
  review: VersionReview | null;
  served: ServedState | null;
}

/** `resources.extras.pendingVersion`: the held version, shown with the resource until its editor decides. */
export interface PendingVersionNote {
  version: number;
  createdAt: string;
  schemaChanges: SchemaDiff;
}

export const lockedResource = async (tx: EntityManager, resourceId: string) =>
  (
    await tx.execute<LockedResource[]>(
      `select r.id, r.url, r.url_type as "urlType", r.hash, r.size, r.mimetype, r.extras,
              (d.state = 'active' and d.harvest_source_id is null) as holdable
         from resources r join datasets d on d.id = r.dataset_id where r.id = ? for update of r`,
      [resourceId],
    )
  )[0] ?? null;

export const versionRows = (tx: EntityManager, resourceId: string) =>
  tx.execute<VersionRow[]>(
    `select n, source_key as "sourceKey", source_url as "sourceUrl", preview_key as "previewKey", sha256, size::float8 as size, schema,
            schema_diff as "schemaDiff", review, served
       from resource_versions where resource_id = ? order by n`,
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

const servedStateOf = (resource: LockedResource, preview: PreviewRecord): ServedState =>
  resource.urlType === 'upload'
    ? { upload: completedUploadOf(resource), mimetype: resource.mimetype ?? null, preview }
    : { fetched: fetchedCopyOf(resource), preview };

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
  resource: LockedResource,
  n: number,
  preview: MadePreview,
  changes: SchemaDiff | null,
  review: VersionReview | null,
) {
  const source = sourceOf(resource);
  // The activity that brought these bytes: the first recorded state of the dataset where the resource
  // had this file's hash (an upload) or this URL (a link).
  const brought = source.url === null ? { hash: source.sha256 } : { url: source.url };
  await tx.execute(
    `insert into resource_versions (resource_id, n, source_key, source_url, preview_key, schema, sha256, size, row_count, created_at, schema_diff, review, served, activity_id)
     values (?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?::jsonb, ?, ?::jsonb,
       (select a.id from activities a join resources r on a.object_id = r.dataset_id
         where r.id = ?::uuid and a.snapshot->'resources' @> jsonb_build_array(?::jsonb || jsonb_build_object('id', r.id))
         order by a.seq limit 1))
     on conflict do nothing`,
    [
      resource.id,
      n,
      source.key,
      source.url,
      preview.key,
      JSON.stringify(preview.schema),
      source.sha256,
      source.size,
      preview.schema.rowCount,
      preview.createdAt ?? new Date().toISOString(),
      changes && JSON.stringify(changes),
      review,
      JSON.stringify(servedStateOf(resource, preview)),
      resource.id,
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
  await insertVersion(tx, resource, 1, { ...preview, key: servedPreviewKey(resource.id, preview), schema: preview.schema }, null, null);
  return versionRows(tx, resource.id);
}

/** What the record must say to serve `version`; versions stored before `served` existed are described from their row. */
function servedStateOfRow(resource: LockedResource, version: VersionRow): ServedState {
  if (version.served) return version.served;
  const preview = { key: version.previewKey, schema: version.schema };
  if (resource.urlType === 'upload') return { upload: { key: version.sourceKey }, preview };
  const bytes = version.size ?? 0;
  const fetched = {
    url: version.sourceUrl ?? resource.url ?? '',
    key: version.sourceKey,
    sha256: version.sha256 ?? undefined,
    bytes,
    truncated: false,
  };
  return { fetched, preview };
}

/**
 * Makes the record serve `version`: its file (an upload's key, size, sha256 and type; a link's fetched copy)
 * and its preview, with `note` as the held version's notice (null: none). The link itself stays what its
 * editor set. Returns the preview now served.
 */
export async function serveVersion(
  tx: EntityManager,
  resource: LockedResource,
  version: VersionRow,
  note: PendingVersionNote | null,
): Promise<MadePreview> {
  const state = servedStateOfRow(resource, version);
  const preview = { ...state.preview, key: servedPreviewKey(resource.id, state.preview), schema: state.preview.schema ?? version.schema };
  const file = resource.urlType === 'upload' ? { upload: state.upload ?? null } : { fetched: state.fetched ?? null };
  await tx.execute(
    `update resources set
       hash = case when url_type = 'upload' then ? else hash end,
       size = case when url_type = 'upload' then ? else size end,
       mimetype = case when url_type = 'upload' then coalesce(?, mimetype) else mimetype end,
       extras = extras || ?::jsonb, updated_at = now()
     where id = ?`,
    [
      version.sha256,
      version.size,
      state.mimetype ?? null,
      JSON.stringify({ ...file, preview, queryable: true, pendingVersion: note }),
      resource.id,
    ],
  );
  return preview;
}

/**
 * Called by the preview step in the transaction that makes `preview` the served one. Returns what the
 * step must record instead when the new version is held: the preview of the version still served.
 *
 * - A retried step finds its own version (the preview key is the run's) and adds nothing.
 * - A run over the bytes the served version holds (a re-run) replaces that version's preview (and a link's
 *   copy, whose key it adds to `replaced`, for removal after the commit) rather than adding one.
 * - New bytes make a new version, with their schema's changes from the served one. When a change is
 *   breaking, the dataset published and the hold on, the version waits for its editor (`pending`) and the
 *   record goes back to serving the version it served: a new upload, or new bytes at the same link. A
 *   version still waiting is superseded either way.
 * - Nothing is recorded when the bytes changed after the run read them: a newer run is on its way.
 */
export async function recordVersion(
  tx: EntityManager,
  resourceId: string,
  readFrom: string,
  preview: MadePreview,
  replaced: string[],
  holdBreaking: boolean,
): Promise<{ preview: MadePreview } | null> {
  const resource = await lockedResource(tx, resourceId);
  if (!resource || liveSourceKey(resource) !== readFrom) return null;
  let rows = await versionRows(tx, resourceId);
  const retried = rows.find((row) => row.previewKey === preview.key);
  if (retried) return retried.review === 'pending' ? { preview: (resource.extras.preview as MadePreview | null) ?? preview } : null;
  rows = await keepPreviousPreview(tx, resource, rows);
  const source = sourceOf(resource);
  const served = servedVersionOf(rows);
  if (served && sameBytes(served, source)) {
    if (served.sourceKey !== source.key) replaced.push(served.sourceKey);
    const before = servedVersionOf(rows.filter((row) => row.n < served.n));
    await tx.execute(
      `update resource_versions set source_key = ?, preview_key = ?, schema = ?::jsonb, row_count = ?, schema_diff = ?::jsonb, served = ?::jsonb
        where resource_id = ? and n = ?`,
      [
        source.key,
        preview.key,
        JSON.stringify(preview.schema),
        preview.schema.rowCount,
        before ? JSON.stringify(diffSchemas(before.schema, preview.schema)) : null,
        JSON.stringify(servedStateOf(resource, preview)),
        resourceId,
        served.n,
      ],
    );
    return null;
  }
  const changes = served ? diffSchemas(served.schema, preview.schema) : null;
  // A link its editor pointed elsewhere is not held: downloads already go to the new address, and serving
  // the old address's data under it would describe a file the resource no longer names.
  const hold = holdBreaking && resource.holdable && !!changes?.breaking && served!.sourceUrl === source.url;
  await tx.execute(`update resource_versions set review = 'superseded' where resource_id = ? and review = 'pending'`, [resourceId]);
  const n = (rows.at(-1)?.n ?? 0) + 1;
  await insertVersion(tx, resource, n, preview, changes, hold ? 'pending' : null);
  if (!hold) {
    await tx.execute(`update resources set extras = extras - 'pendingVersion' where id = ?`, [resourceId]);
    return null;
  }
  const note = { version: n, createdAt: preview.createdAt ?? new Date().toISOString(), schemaChanges: changes! };
  return { preview: await serveVersion(tx, resource, served!, note) };
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
