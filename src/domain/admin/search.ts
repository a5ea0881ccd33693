import { authorize } from '../../policies/index.ts';
import { INDEX_NAMES, type IndexName } from '../../search/vectors/vector-index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { notFound } from '../errors.ts';
import type { PageRequest } from '../pagination.ts';
import { page } from '../pagination.ts';
import { likePattern } from '../like-pattern.ts';

/**
 * GET /admin/search/stats: per index, the points the database holds, the vectors the index holds, how
 * many points have a vector under the current model, and the drift between them.
 */
export async function searchStats(ctx: DomainContext, actor: Actor) {
  authorize(actor, 'site:administer');
  const { embeddings, vectors } = ctx.search;
  const model = embeddings?.model ?? null;
  const [counts, [database], healthy, modelHealthy] = await Promise.all([
    ctx.em.execute<Array<{ index: IndexName; documents: string; embedded: string; bytes: string }>>(
      `select sp.index, count(*) as documents, count(e.content_hash) as embedded, coalesce(sum(octet_length(sp.text)), 0) as bytes
         from search_points sp left join embeddings e on e.model = ? and e.content_hash = sp.content_hash
        group by sp.index`,
      [model ?? ''],
    ),
    ctx.em.execute<Array<{ datasets: string; resources: string }>>(
      `select (select count(*) from datasets where state = 'active') as datasets,
              (select count(*) from resources r join datasets d on d.id = r.dataset_id where d.state = 'active') as resources`,
    ),
    vectors.healthy(),
    embeddings ? embeddings.healthy() : Promise.resolve(false),
  ]);
  const indexes = Object.fromEntries(
    await Promise.all(
      INDEX_NAMES.map(async (index) => {
        const row = counts.find((c) => c.index === index);
        const documents = Number(row?.documents ?? 0);
        const stats = healthy ? await vectors.stats(index).catch(() => null) : null;
        const indexed = stats?.points ?? null;
        return [
          index,
          {
            documents,
            embedded: Number(row?.embedded ?? 0),
            vectors: indexed,
            dimensions: stats?.dimensions ?? null,
            textBytes: Number(row?.bytes ?? 0),
            vectorBytes: stats?.bytes ?? null,
            drift: indexed === null ? null : documents - indexed,
          },
        ];
      }),
    ),
  );
  return {
    model: { name: model, available: modelHealthy },
    vectorIndex: { kind: vectors.kind, available: healthy },
    database: { activeDatasets: Number(database?.datasets ?? 0), resources: Number(database?.resources ?? 0) },
    indexes,
  };
}

interface PointRecord {
  index: IndexName;
  id: string;
  dataset_id: string;
  resource_id: string | null;
  chunk: number | null;
  text: string;
  content_hash: string;
  updated_at: Date;
}

const presentPoint = (row: PointRecord) => ({
  index: row.index,
  id: row.id,
  datasetId: row.dataset_id,
  resourceId: row.resource_id,
  chunk: row.chunk,
  text: row.text,
  contentHash: row.content_hash,
  updatedAt: new Date(row.updated_at).toISOString(),
});

/** GET /admin/search/doc/{index}/{id}: the point as the database has it, and as the vector index has it. */
export async function searchDocument(ctx: DomainContext, actor: Actor, index: IndexName, id: string) {
  authorize(actor, 'site:administer');
  const [row] = await ctx.em.execute<PointRecord[]>('select * from search_points where index = ? and id = ?', [index, id]);
  if (!row) throw notFound('Search document');
  const model = ctx.search.embeddings?.model;
  const [vector] = model
    ? await ctx.em.execute<Array<{ dimensions: number }>>('select dimensions from embeddings where model = ? and content_hash = ?', [
        model,
        row.content_hash,
      ])
    : [];
  const indexed = await ctx.search.vectors.get(index, id).catch(() => null);
  return {
    ...presentPoint(row),
    embedding: vector && model ? { model, dimensions: vector.dimensions } : null,
    indexed: indexed ? { payload: { ...indexed.payload } } : null,
  };
}

/** GET /admin/search/browse/{index}: the index's points in id order, `q` matching their text. */
export async function browseSearch(ctx: DomainContext, actor: Actor, index: IndexName, q: string | undefined, req: PageRequest) {
  authorize(actor, 'site:administer');
  const where = q ? `index = ? and text ilike ?` : 'index = ?';
  const params = q ? [index, likePattern(q)] : [index];
  const [rows, [count]] = await Promise.all([
    ctx.em.execute<PointRecord[]>(`select * from search_points where ${where} order by id offset ? limit ?`, [
      ...params,
      req.offset,
      req.limit,
    ]),
    ctx.em.execute<Array<{ n: string }>>(`select count(*) as n from search_points where ${where}`, params),
  ]);
  return page(rows.map(presentPoint), Number(count?.n ?? 0), req);
}

/** POST /admin/reindex-metadata: the rebuild runs as the workflow `reindex-metadata` (a running one is joined). */
export async function requestReindex(ctx: DomainContext, actor: Actor) {
  authorize(actor, 'site:administer');
  return ctx.jobs.startReindex();
}
