import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Dataset } from './dataset.ts';
import { Resource } from './resource.ts';

export const SEARCH_INDEXES: ['packages', 'resources', 'contents'] = ['packages', 'resources', 'contents'];

/**
 * One document of a search index, as the database knows it: what was embedded (text and its hash) for
 * which dataset, resource or text chunk. The vector indexes are built from these rows and the
 * `embeddings` cache; `contents` rows also carry a keyword document for full-text search of file text.
 */
export const SearchPoint = defineEntity({
  name: 'SearchPoint',
  tableName: 'search_points',
  indexes: [
    {
      name: 'search_points_text_vector_index',
      expression: 'create index "search_points_text_vector_index" on "search_points" using gin ("text_vector")',
    },
  ],
  properties: {
    index: p.enum(SEARCH_INDEXES).primary(),
    id: p.uuid().primary(),
    dataset: () => p.manyToOne(Dataset).deleteRule('cascade').index(),
    resource: () => p.manyToOne(Resource).nullable().deleteRule('cascade').index(),
    chunk: p.integer().nullable(),
    text: p.text(),
    /** Indexed: the vector backlog finds every point of a text it has just embedded (vector-backlog.ts). */
    contentHash: p.string().length(64).index(),
    /** Keyword document of a `contents` chunk (raw SQL, like datasets.search_vector); null elsewhere. */
    textVector: p.string().columnType('tsvector').nullable().lazy().hydrate(false).trackChanges(false),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type SearchPoint = InferEntity<typeof SearchPoint>;
