import type { SchemaDiff } from '../pipeline/schema-diff.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TableSchema } from '../../tabular/column-schema.ts';
import { expiredVersions, type VersionRetention, type VersionReview } from './version-retention.ts';

/** A row of `resource_versions` as readers see it. */
export interface StoredVersion {
  resourceId: string;
  n: number;
  sourceKey: string;
  sourceUrl: string | null;
  previewKey: string;
  schema: TableSchema;
  sha256: string | null;
  size: number | null;
  rowCount: number | null;
  createdAt: Date;
  activityId: string | null;
  schemaDiff: SchemaDiff | null;
  /** Null for a version that was never held by the schema-change hold. */
  review: VersionReview | null;
  reviewedBy: string | null;
  reviewedAt: Date | null;
}

const COLUMNS = `resource_id as "resourceId", n, source_key as "sourceKey", source_url as "sourceUrl", preview_key as "previewKey",
  schema, sha256, size::float8 as size, row_count::float8 as "rowCount", created_at as "createdAt", activity_id as "activityId", schema_diff as "schemaDiff",
  review, reviewed_by as "reviewedBy", reviewed_at as "reviewedAt"`;

async function versionsOf(em: EntityManager, resourceIds: string[]): Promise<StoredVersion[]> {
  if (!resourceIds.length) return [];
  const rows = await em.execute<StoredVersion[]>(
    `select ${COLUMNS} from resource_versions where resource_id in (${resourceIds.map(() => '?').join(', ')}) order by resource_id, n`,
    resourceIds,
  );
  return rows.map((row) => ({ ...row, createdAt: new Date(row.createdAt), reviewedAt: row.reviewedAt && new Date(row.reviewedAt) }));
}

/** What the public feeds tell of a version: no keys, no schema (a page of datasets may name thousands of versions). */
export type VersionSummary = Pick<
  StoredVersion,
  'resourceId' | 'n' | 'previewKey' | 'sha256' | 'size' | 'rowCount' | 'createdAt' | 'schemaDiff' | 'review'
>;

/** The versions retention keeps of each of the resources, newest first, in one query. */
export async function retainedVersionSummaries(em: EntityManager, resourceIds: string[], policy: VersionRetention, now = new Date()) {
  const byResource = new Map<string, VersionSummary[]>();
  if (!resourceIds.length) return byResource;
  const rows = await em.execute<VersionSummary[]>(
    `select resource_id as "resourceId", n, preview_key as "previewKey", sha256, size::float8 as size, row_count::float8 as "rowCount",
            created_at as "createdAt", schema_diff as "schemaDiff", review
       from resource_versions where resource_id = any(?::uuid[]) order by resource_id, n desc`,
    // One array parameter: a page of 500 datasets may hold more resources than a statement has parameters.
    [`{${resourceIds.join(',')}}`],
  );
  for (const row of rows) {
    const versions = byResource.get(row.resourceId) ?? [];
    versions.push({ ...row, createdAt: new Date(row.createdAt) });
    byResource.set(row.resourceId, versions);
  }
  for (const [resourceId, versions] of byResource) {
    const expired = new Set(expiredVersions(versions, policy, now));
    byResource.set(
      resourceId,
      versions.filter((v) => !expired.has(v.n)),
    );
  }
  return byResource;
}

/** A resource's versions that retention keeps, newest first. */
export async function retainedVersions(em: EntityManager, resourceId: string, policy: VersionRetention, now = new Date()) {
  const all = await versionsOf(em, [resourceId]);
  const expired = new Set(expiredVersions(all, policy, now));
  return all.filter((v) => !expired.has(v.n)).reverse();
}

/**
 * For the storage sweep: the keys each resource's retained versions name. With `prune`, the rows of
 * versions retention lets go are deleted first, so their objects become orphans the sweep may remove.
 */
export async function versionedKeys(em: EntityManager, resourceIds: string[], policy: VersionRetention, now: Date, prune: boolean) {
  const byResource = new Map<string, StoredVersion[]>();
  for (const version of await versionsOf(em, resourceIds)) {
    byResource.set(version.resourceId, [...(byResource.get(version.resourceId) ?? []), version]);
  }
  const kept = new Map<string, Set<string>>();
  for (const [resourceId, versions] of byResource) {
    const expired = expiredVersions(versions, policy, now);
    if (prune && expired.length) {
      await em.execute(`delete from resource_versions where resource_id = ? and n in (${expired.map(() => '?').join(', ')})`, [
        resourceId,
        ...expired,
      ]);
    }
    const gone = new Set(expired);
    kept.set(resourceId, new Set(versions.filter((v) => !gone.has(v.n)).flatMap((v) => [v.sourceKey, v.previewKey])));
  }
  return kept;
}
