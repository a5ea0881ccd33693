import fs from 'node:fs/promises';
import path from 'node:path';
import { previewCacheName } from '../../query/preview-cache.ts';
import { resourceIdOfKey } from '../../storage/keys.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ObjectStore } from '../../storage/object-store.ts';
import { isUuid } from '../ids.ts';
import { servedPreviewKey, type PreviewRecord } from '../pipeline/preview-record.ts';
import { orphanReason, type StoredResource } from './orphans.ts';
import type { VersionRetention } from './version-retention.ts';
import { versionedKeys } from './version-store.ts';

const KEEP_ALL: VersionRetention = { keep: 'all' };

/** Keys looked up in the database at once. */
const BATCH = 500;
/** The report lists at most this many orphans (the counts cover them all). */
const LISTED = 1000;

export interface Orphan {
  /** An object key, or `query-cache/<file>` for a query's local copy of a preview. */
  key: string;
  size: number;
  lastModified: string;
  reason: string;
  removed: boolean;
}

export interface OrphanReport {
  scanned: number;
  orphanCount: number;
  orphanBytes: number;
  removedCount: number;
  orphans: Orphan[];
}

export interface SweepDeps {
  em: EntityManager;
  storage: ObjectStore;
  /** Where this process keeps its query copies of previews (`<dataDir>/query-cache`). */
  dataDir: string;
  /** How long earlier data versions are kept (keep all when absent). */
  retention?: VersionRetention;
  /** Called as the listing goes, so a long sweep shows it is alive. */
  heartbeat?: () => void;
}

/**
 * Every object no record serves (a resource deleted while a write was landing, an upload never
 * completed, bytes sent to an upload URL after completion, a preview or file that a crash kept from being
 * removed, the file and preview of a version retention lets go) and every local query copy of a preview
 * no version or record names. With `remove`, the rows of versions retention lets go are deleted first. With `remove`, those last modified
 * more than `olderThanSeconds` ago are removed: younger ones may belong to a write whose record is about
 * to name them. The admin endpoint and the scheduled `sweep-storage` job both run it.
 */
export async function sweepOrphans(deps: SweepDeps, options: { remove: boolean; olderThanSeconds: number }): Promise<OrphanReport> {
  const now = new Date();
  const cutoff = now.getTime() - options.olderThanSeconds * 1000;
  const report: OrphanReport = { scanned: 0, orphanCount: 0, orphanBytes: 0, removedCount: 0, orphans: [] };
  const found = async (object: { key: string; size: number; lastModified: Date }, reason: string, remove: () => Promise<void>) => {
    const removed = options.remove && object.lastModified.getTime() < cutoff;
    if (removed) await remove();
    report.orphanCount++;
    report.orphanBytes += object.size;
    if (removed) report.removedCount++;
    if (report.orphans.length < LISTED) {
      report.orphans.push({ key: object.key, size: object.size, lastModified: object.lastModified.toISOString(), reason, removed });
    }
  };

  let batch: Array<{ key: string; size: number; lastModified: Date }> = [];
  const judge = async () => {
    deps.heartbeat?.();
    const rows = await resourcesOf(
      deps.em,
      batch.map((o) => resourceIdOfKey(o.key)),
    );
    const versioned = await versionedKeys(deps.em, [...rows.keys()], deps.retention ?? KEEP_ALL, now, options.remove);
    for (const object of batch) {
      const id = resourceIdOfKey(object.key);
      const reason = orphanReason(object.key, (id && rows.get(id)) || null, now, (id && versioned.get(id)) || undefined);
      if (reason) await found(object, reason, () => deps.storage.remove(object.key));
    }
    batch = [];
  };
  for await (const object of deps.storage.list('resources/')) {
    report.scanned++;
    batch.push(object);
    if (batch.length === BATCH) await judge();
  }
  await judge();

  const dir = path.join(deps.dataDir, 'query-cache');
  const served = await servedPreviewCacheNames(deps.em);
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    const stats = await fs.stat(path.join(dir, name)).catch(() => null);
    if (!stats?.isFile()) continue;
    report.scanned++;
    if (served.has(name)) continue;
    const object = { key: `query-cache/${name}`, size: stats.size, lastModified: stats.mtime };
    await found(object, 'a query copy of a preview no longer served', () => fs.rm(path.join(dir, name), { force: true }));
  }
  return report;
}

async function resourcesOf(em: EntityManager, ids: Array<string | null>) {
  const wanted = [...new Set(ids.filter((id): id is string => !!id && isUuid(id)))];
  const rows = wanted.length
    ? await em.execute<StoredResource[]>(
        `select id, url_type as "urlType", url, extras from resources where id in (${wanted.map(() => '?').join(', ')})`,
        wanted,
      )
    : [];
  return new Map(rows.map((row) => [row.id, row]));
}

async function servedPreviewCacheNames(em: EntityManager) {
  const rows = await em.execute<Array<{ id: string; preview: PreviewRecord }>>(
    `select id, extras->'preview' as preview from resources where jsonb_typeof(extras->'preview') = 'object'`,
  );
  const versions = await em.execute<Array<{ key: string }>>(`select preview_key as key from resource_versions`);
  return new Set(
    [...rows.map((row) => servedPreviewKey(row.id, row.preview)), ...versions.map((row) => row.key)].map(
      (key) => `${previewCacheName(key)}.parquet`,
    ),
  );
}
