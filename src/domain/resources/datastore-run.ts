import path from 'node:path';
import { withCallerLock } from '../../query/caller-lock.ts';
import { localPreview } from '../../query/preview-cache.ts';
import { runInQueryProcess } from '../../query/process-pool.ts';
import { QUERY_LIMITS, QueryError, type QueryResult, type QueryTable } from '../../query/sandbox.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { notFound, queryFailed, tooManyRequests } from '../errors.ts';
import { servedPreviewKey, type PreviewRecord } from '../pipeline/preview-record.ts';
import type { TableSchema } from '../../tabular/column-schema.ts';
import { loadReadablePreview } from './access-query.ts';

/** A resource whose typed preview the DataStore reads, and the caller may see. */
export interface DatastoreTable {
  resourceId: string;
  preview: PreviewRecord & { schema: TableSchema };
}

/**
 * A DataStore table: a resource of an active dataset the actor may see, with a typed preview. Anything
 * else (no such resource, one the actor may not see, a draft's, a deleted dataset's, no preview) is the
 * same 404. One statement, as for a query (access-query.ts): the DataStore never presents the dataset.
 */
export async function loadDatastoreTable(ctx: DomainContext, actor: Actor, id: string): Promise<DatastoreTable> {
  const { resource, subject } = await loadReadablePreview(ctx, actor, id);
  const preview = resource.preview as PreviewRecord | null | undefined;
  if (subject.state !== 'active' || resource.queryable !== true || !preview?.createdAt || !preview.schema) throw notFound('Resource');
  return { resourceId: resource.id, preview: preview as DatastoreTable['preview'] };
}

/** What a DataStore query gives: the sandbox's capped rows and DuckDB's type of each column. */
export type DatastoreResult = QueryResult & { types: string[] };

/** The local preview of each table, as the view of the name given with its row number as `_id`. */
export function datastoreViews(ctx: DomainContext, tables: Array<{ name: string; table: DatastoreTable }>): Promise<QueryTable[]> {
  const cacheDir = path.join(ctx.config.dataDir, 'query-cache');
  return Promise.all(
    tables.map(async ({ name, table }) => ({
      name,
      path: await localPreview(ctx.storage, cacheDir, servedPreviewKey(table.resourceId, table.preview)),
      rowIds: true,
    })),
  );
}

/**
 * `work` once `ready` (the tables loaded, the SQL planned, the previews local) has settled, under the
 * caller's one-query-at-a-time lock, which is asked for meanwhile: its round trip to PostgreSQL is off
 * the query's path. A failure of `ready` (a 404, a bad parameter) wins over a busy lock, as when the lock
 * came after it; the lock is then released unused.
 */
export async function withDatastoreLock<T, R>(
  ctx: DomainContext,
  caller: string,
  ready: Promise<T>,
  work: (ready: T) => Promise<R>,
): Promise<R> {
  ready.catch(() => undefined); // awaited below on every path
  const outcome = await withCallerLock(ctx.em, caller, async () => work(await ready));
  if (outcome === 'busy') {
    await ready;
    throw tooManyRequests('query_busy', 'Another query of yours is still running; one at a time.', 1);
  }
  return outcome;
}

/**
 * One SELECT over `views` in a query process, with the limits of POST /resources/{id}/query; call it
 * holding the caller's lock. `planned`: the SQL is the service's own (datastore-sql.ts), never a caller's.
 */
export async function runDatastoreSql(ctx: DomainContext, views: QueryTable[], sql: string, planned = false): Promise<DatastoreResult> {
  try {
    const result = await runInQueryProcess(
      { parquetPath: views[0]?.path ?? '', tables: views, sql, limits: QUERY_LIMITS, columnTypes: true, planned },
      ctx.config.query.maxProcesses,
    );
    return { ...result, types: result.types ?? [] };
  } catch (err) {
    if (err instanceof QueryError) throw queryFailed(err.code, err.message);
    throw err;
  }
}

/**
 * One SELECT over the previews of `tables`, each a view of the name given with its row number as `_id`,
 * in the same query processes, limits and one-query-per-caller lock as POST /resources/{id}/query.
 */
export function queryDatastore(
  ctx: DomainContext,
  caller: string,
  tables: Array<{ name: string; table: DatastoreTable }>,
  sql: string,
  planned = false,
): Promise<DatastoreResult> {
  return withDatastoreLock(ctx, caller, datastoreViews(ctx, tables), (views) => runDatastoreSql(ctx, views, sql, planned));
}
