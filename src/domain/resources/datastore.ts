import fsp from 'node:fs/promises';
import path from 'node:path';
import { localPreview } from '../../query/preview-cache.ts';
import { QUERY_LIMITS } from '../../query/sandbox.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { DomainError, invalidParameters, queryTooLong } from '../errors.ts';
import { servedPreviewKey } from '../pipeline/preview-record.ts';
import {
  datastoreViews,
  loadDatastoreTable,
  queryDatastore,
  runDatastoreSql,
  withDatastoreLock,
  type DatastoreTable,
} from './datastore-run.ts';
import { planDatastoreSearch, totalIsRowCount, type DatastoreQuery } from './datastore-sql.ts';
import { ckanType, ckanValue } from './datastore-types.ts';
import { MAX_SQL_CHARS } from './query.ts';

/** The DataStore (CKAN's datastore_search, datastore_search_sql, datastore_info) over resources' typed previews. */

/** The most rows a page gives: the query sandbox's row cap (CKAN's `ckan.datastore.search.rows_max`). */
export const DATASTORE_MAX_ROWS = QUERY_LIMITS.maxRows;
/** Tables one datastore_search_sql may name. */
export const MAX_SQL_TABLES = 8;

export interface DatastoreField {
  id: string;
  type: string;
}

export interface DatastorePage {
  resourceId: string;
  fields: DatastoreField[];
  /** Values in the order of `fields`. */
  rows: unknown[][];
  total?: number;
  /** Rows asked for, lowered when the answer reached the sandbox's byte cap first. */
  limit: number;
  offset: number;
  /** The `_id` the page ended on, when the order is `_id` (the cursor of the next page). */
  lastId?: number;
}

export async function datastoreSearch(
  ctx: DomainContext,
  actor: Actor,
  id: string,
  query: DatastoreQuery,
  caller: string,
): Promise<DatastorePage> {
  const knownTotal = totalIsRowCount(query);
  const ready = loadDatastoreTable(ctx, actor, id).then(async (table) => {
    const plan = planDatastoreSearch(table.preview.schema.columns, query, knownTotal);
    return { table, plan, views: await datastoreViews(ctx, [{ name: 'data', table }]) };
  });
  // The page carries its total; an empty page has none, and the count runs under the same lock.
  const { table, plan, result, counted } = await withDatastoreLock(ctx, caller, ready, async ({ table, plan, views }) => {
    const result = await runDatastoreSql(ctx, views, plan.pageSql, true);
    const counted =
      query.includeTotal && !knownTotal && !result.rows.length
        ? (await runDatastoreSql(ctx, views, plan.countSql!, true)).rows[0]?.[0]
        : undefined;
    return { table, plan, result, counted };
  });
  // The page's columns are the outputs (`c0`…), then the total `t` and the last `_id` `k` where the plan asked for them.
  const types = plan.outputs.map((o, i) => o.type ?? ckanType(result.types[i] ?? 'VARCHAR').type);
  let total: number | undefined;
  if (query.includeTotal) {
    if (knownTotal) total = table.preview.schema.rowCount;
    else if (result.rows.length) total = Number(result.rows[0][result.columns.indexOf('t')]);
    else total = Number(counted ?? 0);
  }
  const last = result.rows.at(-1);
  return {
    resourceId: table.resourceId,
    fields: plan.outputs.map((o, i) => ({ id: o.id, type: types[i] })),
    rows: result.rows.map((row) => types.map((type, i) => ckanValue(row[i], type))),
    total,
    limit: result.truncated ? result.rows.length : query.limit,
    offset: query.offset,
    lastId: plan.keyset && last ? Number(last[result.columns.indexOf('k')]) : undefined,
  };
}

/** CKAN's datastore_info: the table's row count and size, and each field with its PostgreSQL type. */
export async function datastoreInfo(ctx: DomainContext, actor: Actor, id: string, caller: string) {
  const table = await loadDatastoreTable(ctx, actor, id);
  const result = await queryDatastore(ctx, caller, [{ name: 'data', table }], 'SELECT * FROM data LIMIT 0', true);
  const file = await localPreview(
    ctx.storage,
    path.join(ctx.config.dataDir, 'query-cache'),
    servedPreviewKey(table.resourceId, table.preview),
  );
  const size = (await fsp.stat(file)).size;
  return {
    resourceId: table.resourceId,
    rowCount: table.preview.schema.rowCount,
    size,
    fields: result.columns.map((name, i) => ({ name, ...ckanType(result.types[i] ?? 'VARCHAR') })).filter((f) => f.name !== '_id'),
  };
}

const UUID_IN_TEXT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * CKAN's datastore_search_sql: one SELECT whose tables are resource ids (`SELECT * FROM "<id>"`). Only
 * resources the actor may read are tables at all: one it may not see is missing exactly as one that
 * does not exist (CKAN told them apart, ckan#652), whichever the SQL names.
 */
export async function datastoreSearchSql(ctx: DomainContext, actor: Actor, sql: string, caller: string) {
  if (sql.length > MAX_SQL_CHARS) throw queryTooLong(MAX_SQL_CHARS);
  const named = [...new Set((sql.match(UUID_IN_TEXT) ?? []).map((id) => id.toLowerCase()))];
  if (named.length > MAX_SQL_TABLES) {
    throw invalidParameters([{ path: 'sql', message: `A query may name at most ${MAX_SQL_TABLES} resources.` }]);
  }
  const tables: Array<{ name: string; table: DatastoreTable }> = [];
  for (const id of named) {
    try {
      tables.push({ name: id, table: await loadDatastoreTable(ctx, actor, id) });
    } catch (err) {
      if (!(err instanceof DomainError && err.code === 'not_found')) throw err;
    }
  }
  if (!tables.length) {
    throw invalidParameters([
      { path: 'sql', message: 'The query names no table: a table is a resource id you may read, as in SELECT * FROM "<resource id>".' },
    ]);
  }
  const result = await queryDatastore(ctx, caller, tables, sql);
  const types = result.types.map((t) => ckanType(t).type);
  return {
    fields: result.columns.map((id, i) => ({ id, type: types[i] })),
    records: result.rows.map((row) => Object.fromEntries(result.columns.map((name, i) => [name, ckanValue(row[i], types[i])]))),
    truncated: result.truncated,
  };
}
