import path from 'node:path';
import { localPreview } from '../../query/preview-cache.ts';
import { withCallerLock } from '../../query/caller-lock.ts';
import { runInQueryProcess } from '../../query/process-pool.ts';
import { QUERY_LIMITS, QueryError, rowObjects, type QueryTable } from '../../query/sandbox.ts';
import type { Actor } from '../actor.ts';
import { servedPreviewKey, type PreviewRecord } from '../pipeline/preview-record.ts';
import type { DomainContext } from '../context.ts';
import { notFound, notQueryable, queryFailed, queryTooLong, tooManyRequests } from '../errors.ts';
import { loadReadableResource } from './access-query.ts';
import { readableVersions } from './versions.ts';

/** Longer SQL than this is refused before DuckDB sees it. */
export const MAX_SQL_CHARS = 100_000;

/** Who holds the one-query-at-a-time lock: the user, else the client's address. REST and MCP alike. */
export const queryCaller = (actor: Actor, clientIp: string) => actor.userId ?? `ip:${clientIp}`;

/** `version_<n>` in a query's text: the versions whose previews the sandbox attaches (the source guard still decides). */
const VERSION_NAME = /\bversion_(\d{1,9})\b/gi;
/** Each attached version is a preview copied to this process and opened by the query: a few to compare, not the whole history. */
export const MAX_ATTACHED_VERSIONS = 4;

/**
 * POST /resources/{id}/query: one read-only SELECT over the resource's preview (the table `data`), for
 * a caller (user id, else client IP) that has no other query running anywhere. The SQL may also name
 * `version_<n>`, a view over that version's preview in the same sandbox, so one SELECT can compare two.
 * With `version`, `data` is that version instead of the current one (POST …/versions/{n}/query).
 */
export async function queryResource(ctx: DomainContext, actor: Actor, id: string, sql: string, caller: string, version?: number) {
  const { resource } = await loadReadableResource(ctx, actor, id);
  const preview = resource.extras.preview as PreviewRecord | null | undefined;
  const named = new Set([...sql.matchAll(VERSION_NAME)].map((m) => Number(m[1])));
  if (named.size > MAX_ATTACHED_VERSIONS) {
    throw queryFailed('query_invalid', `A query may name at most ${MAX_ATTACHED_VERSIONS} versions (version_<n>).`);
  }
  const versions = named.size || version !== undefined ? await readableVersions(ctx, resource) : [];
  let dataKey: string;
  if (version === undefined) {
    if (resource.extras.queryable !== true || !preview?.createdAt) throw notQueryable();
    dataKey = servedPreviewKey(resource.id, preview);
  } else {
    const chosen = versions.find((v) => v.n === version);
    if (!chosen) throw notFound('Version');
    dataKey = chosen.previewKey;
  }
  if (sql.length > MAX_SQL_CHARS) {
    throw queryTooLong(MAX_SQL_CHARS);
  }
  const cache = path.join(ctx.config.dataDir, 'query-cache');
  const file = await localPreview(ctx.storage, cache, dataKey);
  const attached = versions.filter((v) => named.has(v.n));
  const tables: QueryTable[] = [
    { name: 'data', path: file },
    ...(await Promise.all(
      attached.map(async (v) => ({ name: `version_${v.n}`, path: await localPreview(ctx.storage, cache, v.previewKey) })),
    )),
  ];
  const outcome = await withCallerLock(ctx.em, caller, async () => {
    try {
      return await runInQueryProcess(
        { parquetPath: file, sql, limits: QUERY_LIMITS, ...(attached.length ? { tables } : {}) },
        ctx.config.query.maxProcesses,
      );
    } catch (err) {
      if (err instanceof QueryError) throw queryFailed(err.code, err.message);
      throw err;
    }
  });
  if (outcome === 'busy') throw tooManyRequests('query_busy', 'Another query of yours is still running; one at a time.', 1);
  return { id: resource.id, ...outcome, rows: rowObjects(outcome.columns, outcome.rows) };
}
