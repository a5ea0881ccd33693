import path from 'node:path';
import { localPreview } from '../../query/preview-cache.ts';
import { withCallerLock } from '../../query/caller-lock.ts';
import { QueryError, runSandboxedQuery } from '../../query/sandbox.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { DomainError, tooManyRequests } from '../errors.ts';
import { loadVisibleResource } from './resources.ts';

/** Longer SQL than this is refused before DuckDB sees it. */
export const MAX_SQL_CHARS = 100_000;

const STATUS: Record<QueryError['code'], number> = { query_invalid: 400, query_not_select: 400, query_timeout: 408 };
const TITLE: Record<QueryError['code'], string> = {
  query_invalid: 'Invalid query',
  query_not_select: 'Only SELECT queries',
  query_timeout: 'Query timeout',
};

/**
 * POST /resources/{id}/query: one read-only SELECT over the resource's preview (the table `data`), for
 * a caller (user id, else client IP) that has no other query running anywhere.
 */
/** Who holds the one-query-at-a-time lock: the user, else the client's address. REST and MCP alike. */
export const queryCaller = (actor: Actor, clientIp: string) => actor.userId ?? `ip:${clientIp}`;

export const notQueryable = () =>
  new DomainError(400, 'not_queryable', 'Not queryable', 'This resource has no preview to query: only CSV/TSV resources the pipeline has processed are queryable.');

export async function queryResource(ctx: DomainContext, actor: Actor, id: string, sql: string, caller: string) {
  const { resource } = await loadVisibleResource(ctx, actor, id, true);
  const preview = resource.extras.preview as { createdAt?: string } | null | undefined;
  if (resource.extras.queryable !== true || !preview?.createdAt) {
    throw notQueryable();
  }
  if (sql.length > MAX_SQL_CHARS) {
    throw new DomainError(400, 'query_too_long', 'Query too long', `Queries are limited to ${MAX_SQL_CHARS} characters.`);
  }
  const file = await localPreview(ctx.storage, path.join(ctx.config.dataDir, 'query-cache'), resource.id, preview.createdAt);
  const outcome = await withCallerLock(ctx.em, caller, async () => {
    try {
      return await runSandboxedQuery(file, sql);
    } catch (err) {
      if (err instanceof QueryError) throw new DomainError(STATUS[err.code], err.code, TITLE[err.code], err.message);
      throw err;
    }
  });
  if (outcome === 'busy') throw tooManyRequests('query_busy', 'Another query of yours is still running; one at a time.', 1);
  return { id: resource.id, ...outcome };
}
