import { datastoreInfo, datastoreSearch, datastoreSearchSql, DATASTORE_MAX_ROWS } from '../../../domain/resources/datastore.ts';
import { copyText } from '../../../domain/resources/datastore-types.ts';
import type { ActionParams } from '../params.ts';
import { required, type Action } from './action.ts';
import { readDatastoreQuery, RECORDS_FORMATS, type RecordsFormat } from './datastore-params.ts';

/** The DataStore actions, over resources' typed previews (CKAN 2.10/2.11's ckanext-datastore). */

const SEARCH_PATH = '/api/3/action/datastore_search';

/**
 * `_links` as CKAN builds them from the request: `start` without the offset, `next` with offset +
 * limit, and here the `_id` the page ended on as `cursor` (with the offset it stands for), so following
 * `next` costs what the first page did (a CKAN client that builds its own offset never sends it, and gets
 * the same rows; one that changes the link's offset gets that offset).
 */
function links(params: ActionParams, offset: number, limit: number, lastId: number | undefined) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params.raw)) {
    if (key === 'offset' || key === 'cursor' || value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) query.append(key, typeof item === 'string' ? item : JSON.stringify(item));
  }
  const start = query.size ? `${SEARCH_PATH}?${query}` : SEARCH_PATH;
  query.append('offset', String(offset + limit));
  if (lastId !== undefined) query.append('cursor', `${offset + limit}:${lastId}`);
  return { start, next: `${SEARCH_PATH}?${query}` };
}

function records(format: RecordsFormat, ids: string[], rows: unknown[][]) {
  switch (format) {
    case 'objects':
      return rows.map((row) => Object.fromEntries(ids.map((id, i) => [id, row[i]])));
    case 'lists':
      return rows;
    case 'csv':
      return copyText(rows, ',');
    case 'tsv':
      return copyText(rows, '\t');
  }
}

export const datastoreSearchAction: Action = {
  help:
    `Rows of a resource’s typed preview, as CKAN's DataStore: resource_id, q (text, or {field: text}), filters ({field: value or [values]}), ` +
    `sort ("field asc, other desc"), fields, distinct, limit (default 100, at most ${DATASTORE_MAX_ROWS}), offset, include_total, ` +
    `records_format (${RECORDS_FORMATS.join(', ')}); _links.next carries a cursor that keeps deep pages as fast as the first.`,
  async run({ domain, actor, params, caller }) {
    const resourceId = required(params, 'resource_id', 'id');
    const { query, format, echo } = readDatastoreQuery(params);
    const page = await datastoreSearch(domain, actor, resourceId, query, caller);
    const ids = page.fields.map((f) => f.id);
    return {
      include_total: query.includeTotal,
      resource_id: page.resourceId,
      ...echo,
      fields: page.fields,
      records_format: format,
      records: records(format, ids, page.rows),
      limit: page.limit,
      offset: page.offset,
      _links: links(params, page.offset, page.limit, page.lastId),
      ...(page.total !== undefined ? { total: page.total, total_was_estimated: false } : {}),
    };
  },
};

export const datastoreSearchSqlAction: Action = {
  help:
    'One SELECT over resources’ typed previews, each a table named by its resource id: sql=SELECT * FROM "<resource id>" ' +
    `(joins of resources you may read work too). At most ${DATASTORE_MAX_ROWS} rows (records_truncated says when there were more).`,
  async run({ domain, actor, params, caller }) {
    const sql = required(params, 'sql');
    params.check();
    const result = await datastoreSearchSql(domain, actor, sql, caller);
    return { sql, records: result.records, fields: result.fields, ...(result.truncated ? { records_truncated: true } : {}) };
  },
};

export const datastoreInfoAction: Action = {
  help: 'A DataStore table’s fields with their types (and native PostgreSQL type) and its meta: row count, size in bytes.',
  async run({ domain, actor, params, caller }) {
    const id = required(params, 'id', 'resource_id');
    params.check();
    const info = await datastoreInfo(domain, actor, id, caller);
    return {
      meta: {
        id: info.resourceId,
        count: info.rowCount,
        table_type: 'BASE TABLE',
        // The preview is its own database: the file is the table's and the database's whole size, without indexes.
        size: info.size,
        db_size: info.size,
        idx_size: 0,
        aliases: [],
      },
      fields: info.fields.map((f) => ({
        id: f.name,
        type: f.type,
        schema: { native_type: f.native, notnull: false, index_name: null, is_index: false, uniquekey: false },
      })),
    };
  },
};

export const datastoreActions: Record<string, Action> = {
  datastore_search: datastoreSearchAction,
  datastore_search_sql: datastoreSearchSqlAction,
  datastore_info: datastoreInfoAction,
};
