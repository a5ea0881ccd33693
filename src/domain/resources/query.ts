import path from 'node:path';
import { localPreview } from '../../query/preview-cache.ts';
import { withCallerLock } from '../../query/caller-lock.ts';
import { runInQueryProcess } from '../../query/process-pool.ts';
import { QUERY_LIMITS, QueryError, rowObjects } from '../../query/sandbox.ts';
import type { Actor } from '../actor.ts';
import { servedPreviewKey, type PreviewRecord } from '../pipeline/preview-record.ts';
import type { DomainContext } from '../context.ts';
import { notQueryable, queryFailed, queryTooLong, tooManyRequests } from '../errors.ts';
import { loadReadableResource } from './access-query.ts';

/** Longer SQL than this is refused before DuckDB sees it. */
export const MAX_SQL_CHARS = 100_000;

/** Who holds the one-query-at-a-time lock: the user, else the client's address. REST and MCP alike. */
export const queryCaller = (actor: Actor, clientIp: string) => actor.userId ?? `ip:${clientIp}`;

/**
 * POST /resources/{id}/query: one read-only SELECT over the resource's preview (the table `data`), for
 * a caller (user id, else client IP) that has no other query running anywhere.
 */
export async function queryResource(ctx: DomainContext, actor: Actor, id: string, sql: string, caller: string) {
  const { resource } = await loadReadableResource(ctx, actor, id);
  const preview = resource.extras.preview as PreviewRecord | null | undefined;
  if (resource.extras.queryable !== true || !preview?.createdAt) {
    throw notQueryable();
  }
  if (sql.length > MAX_SQL_CHARS) {
    throw queryTooLong(MAX_SQL_CHARS);
  }
  const file = await localPreview(ctx.storage, path.join(ctx.config.dataDir, 'query-cache'), servedPreviewKey(resource.id, preview));
  const outcome = await withCallerLock(ctx.em, caller, async () => {
    try {
      return await runInQueryProcess({ parquetPath: file, sql, limits: QUERY_LIMITS }, ctx.config.query.maxProcesses);
    } catch (err) {
      if (err instanceof QueryError) throw queryFailed(err.code, err.message);
      throw err;
    }
  });
  if (outcome === 'busy') throw tooManyRequests('query_busy', 'Another query of yours is still running; one at a time.', 1);
  return { id: resource.id, ...outcome, rows: rowObjects(outcome.columns, outcome.rows) };
}
