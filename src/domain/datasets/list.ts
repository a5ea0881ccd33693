import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { page } from '../pagination.ts';
import { loadDatasetsFields } from './detail-query.ts';
import { findDatasetIds } from './list-ids.ts';
import type { DatasetListQuery } from './list-query.ts';
import { presentDataset } from './present.ts';

/** GET /packages (and MCP, the web pages): the listing's page (list-ids.ts) as dataset records. */
export async function listDatasets(ctx: DomainContext, actor: Actor, query: DatasetListQuery) {
  const { ids, total, search, facets } = await findDatasetIds(ctx, actor, query);
  const [rows, matches] = await Promise.all([loadDatasetsFields(ctx.em, ids), search?.explain(ids)]);
  return {
    ...page(
      rows.map((d) => ({ ...presentDataset(d), ...(matches?.has(d.id) ? { match: matches.get(d.id) } : {}) })),
      total,
      query,
    ),
    ...(search ? { meta: { semantic: search.semantic } } : {}),
    ...(facets ? { facets } : {}),
  };
}
