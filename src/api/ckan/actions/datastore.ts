import { previewPage } from '../../../domain/catalog/resources.ts';
import { invalidParameters } from '../../../domain/errors.ts';
import type { ColumnType } from '../../../tabular/column-schema.ts';
import { MAX_OFFSET } from '../params.ts';
import { required, type Action } from './action.ts';

/** The DataStore actions, over a resource's typed preview. */

/** The datastore's names for the preview's column types. */
const DATASTORE_TYPES: Record<ColumnType, string> = { integer: 'int', float: 'numeric', boolean: 'bool', string: 'text' };
/** Datastore parameters that would change the rows; not supported, so refused rather than ignored. */
const UNSUPPORTED = ['q', 'filters', 'sort', 'distinct', 'plain', 'language'];

export const datastoreSearch: Action = {
  help: 'Rows of a resource’s typed preview: resource_id, limit (default 100, at most 10000), offset, fields.',
  async run({ domain, actor, params, caller }) {
    const resourceId = required(params, 'resource_id', 'id');
    const limit = params.int('limit', { min: 0 }) ?? 100;
    const offset = params.int('offset', { min: 0, max: MAX_OFFSET }) ?? 0;
    const fieldList = params.list('fields', { jsonText: true });
    params.check();
    const refused = UNSUPPORTED.filter((key) => params.has(key));
    if (refused.length) throw invalidParameters(refused.map((path) => ({ path, message: 'Not supported by this datastore' })));
    // Each field once, in the order first named (CKAN lists a field named twice once).
    const fields = fieldList && [
      ...new Set(
        fieldList
          .flatMap((f) => f.split(','))
          .map((f) => f.trim())
          .filter((f) => f && f !== '_id'),
      ),
    ];
    const page = await previewPage(domain, actor, resourceId, { fields: fields?.length ? fields : undefined, limit, offset }, caller);
    const start = `/api/3/action/datastore_search?resource_id=${encodeURIComponent(page.resourceId)}${params.has('limit') ? `&limit=${page.limit}` : ''}`;
    return {
      resource_id: page.resourceId,
      fields: [{ id: '_id', type: 'int' }, ...page.columns.map((c) => ({ id: c.name, type: DATASTORE_TYPES[c.type] }))],
      records: page.rows.map((row, i) => ({ _id: page.offset + i + 1, ...row })),
      total: page.total,
      total_was_estimated: false,
      include_total: true,
      records_format: 'objects',
      limit: page.limit,
      offset: page.offset,
      _links: { start, next: `${start}&offset=${page.offset + page.limit}` },
    };
  },
};

export const datastoreActions: Record<string, Action> = {
  datastore_search: datastoreSearch,
};
