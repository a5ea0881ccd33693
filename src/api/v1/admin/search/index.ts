import { z } from 'zod';
import { browseSearch, requestReindex, searchDocument, searchStats } from '../../../../domain/admin/search.ts';
import { defineRoute } from '../../../../http/route.ts';
import { Accepted, listOf, paging } from '../../../../http/schemas.ts';
import { INDEX_NAMES } from '../../../../search/vectors/vector-index.ts';

const IndexStats = z.object({
  documents: z.number().int().describe('Points the database holds (the source of truth)'),
  embedded: z.number().int().describe('Of those, points with a vector under the current model'),
  vectors: z.number().int().nullable().describe('Points the vector index holds; null when it is unreachable'),
  dimensions: z.number().int().nullable(),
  textBytes: z.number().int(),
  vectorBytes: z.number().int().nullable().describe('As the vector index reports it'),
  drift: z.number().int().nullable().describe('documents − vectors: 0 when the index is in line with the database'),
});

const SearchStats = z
  .object({
    model: z.object({ name: z.string().nullable(), available: z.boolean() }),
    vectorIndex: z.object({ kind: z.enum(['qdrant', 'embedded']), available: z.boolean() }),
    database: z.object({ activeDatasets: z.number().int(), resources: z.number().int() }),
    indexes: z.object({ packages: IndexStats, resources: IndexStats, contents: IndexStats }),
  })
  .meta({ id: 'SearchStats' });

const SearchPoint = z
  .object({
    index: z.enum(INDEX_NAMES),
    id: z.uuid(),
    datasetId: z.uuid(),
    resourceId: z.uuid().nullable(),
    chunk: z.number().int().nullable(),
    text: z.string().describe('What was embedded'),
    contentHash: z.string(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'SearchDocument' });

const indexParams = z.object({ index: z.enum(INDEX_NAMES) });

export const adminSearchRoutes = [
  defineRoute({
    method: 'get',
    path: '/admin/search/stats',
    tag: 'admin',
    access: 'sysadmin',
    summary: 'Search index statistics: documents, vectors and size per index, database counts, drift, model',
    response: SearchStats,
    handle: ({ domain, actor }) => searchStats(domain, actor),
  }),
  defineRoute({
    method: 'get',
    path: '/admin/search/doc/{index}/{id}',
    tag: 'admin',
    access: 'sysadmin',
    summary: 'One index document: as the database holds it, its embedding, and its payload in the vector index',
    params: indexParams.extend({ id: z.uuid() }),
    response: SearchPoint.extend({
      embedding: z.object({ model: z.string(), dimensions: z.number().int() }).nullable(),
      indexed: z
        .object({ payload: z.record(z.string(), z.unknown()) })
        .nullable()
        .describe('null when the vector index lacks it'),
    }),
    handle: ({ domain, actor, params }) => searchDocument(domain, actor, params.index, params.id),
  }),
  defineRoute({
    method: 'get',
    path: '/admin/search/browse/{index}',
    tag: 'admin',
    access: 'sysadmin',
    summary: "Browse an index's documents in id order; q matches their text",
    params: indexParams,
    query: z.object({ q: z.string().trim().min(1).max(200).optional(), ...paging }),
    response: listOf(SearchPoint),
    handle: ({ domain, actor, params, query }) => browseSearch(domain, actor, params.index, query.q, query),
  }),
  defineRoute({
    method: 'post',
    path: '/admin/reindex-metadata',
    problems: ['jobs_unavailable'],
    tag: 'admin',
    access: 'sysadmin',
    status: 202,
    summary:
      'Rebuild every search index from the database, as the workflow reindex-metadata (a running one is joined); search keeps answering',
    response: Accepted,
    handle: ({ domain, actor }) => requestReindex(domain, actor),
  }),
];
