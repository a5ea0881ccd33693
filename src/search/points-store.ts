import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray } from '../db.ts';
import { contentHash } from './embeddings/cache.ts';
import type { SearchDocument } from './documents.ts';
import type { IndexName, VectorPayload } from './vectors/vector-index.ts';

/**
 * The `search_points` table: what each index holds, as the database knows it. Vector indexes are
 * built from these rows (and the embeddings cache), never the other way round.
 */

export interface PointRow {
  index: IndexName;
  id: string;
  contentHash: string;
  payload: VectorPayload;
}

/** Ids per index of the datasets' points now, to tell which ones a new version drops. */
export async function pointIdsOf(em: EntityManager, datasetIds: string[]): Promise<Map<IndexName, Set<string>>> {
  const rows = await em.execute<Array<{ index: IndexName; id: string }>>(
    'select index, id from search_points where dataset_id = any(?::uuid[])',
    [pgArray(datasetIds)],
  );
  const ids = new Map<IndexName, Set<string>>();
  for (const row of rows) ids.set(row.index, (ids.get(row.index) ?? new Set()).add(row.id));
  return ids;
}

/**
 * Replaces the points of each dataset with its documents in one transaction; `contents` chunks also get a
 * keyword document, so file text is found by keywords too.
 */
export async function writePoints(em: EntityManager, docsByDataset: Map<string, SearchDocument[]>, language: string) {
  const rows = [...docsByDataset].flatMap(([datasetId, docs]) =>
    docs.map((d) => ({
      index: d.index,
      id: d.id,
      dataset_id: datasetId,
      resource_id: d.resourceId,
      chunk: d.chunk,
      text: d.text,
      hash: contentHash(d.text),
    })),
  );
  await em.transactional(async (tx) => {
    await tx.execute('delete from search_points where dataset_id = any(?::uuid[])', [pgArray([...docsByDataset.keys()])]);
    for (let i = 0; i < rows.length; i += 500) {
      await tx.execute(
        `insert into search_points (index, id, dataset_id, resource_id, chunk, text, content_hash, updated_at, text_vector)
         select x.index, x.id::uuid, x.dataset_id::uuid, x.resource_id::uuid, x.chunk, x.text, x.hash, now(),
                case when x.index = 'contents' then to_tsvector(?::regconfig, unaccent(x.text)) end
           from jsonb_to_recordset(?::jsonb) as x(index text, id text, dataset_id text, resource_id text, chunk int, text text, hash text)`,
        [language, JSON.stringify(rows.slice(i, i + 500))],
      );
    }
  });
}

export async function deletePoints(em: EntityManager, datasetIds: string[]) {
  await em.execute('delete from search_points where dataset_id = any(?::uuid[])', [pgArray(datasetIds)]);
}

const PAYLOAD_SQL = `
  select sp.index, sp.id, sp.content_hash, sp.text, sp.resource_id, sp.chunk,
         d.id as dataset_id, d.owner_org_id, d.private, d.license_id,
         coalesce((select array_agg(dg.group_id::text) from dataset_groups dg where dg.dataset_id = d.id), '{}') as groups,
         coalesce((select array_agg(t.name) from dataset_tags dt join tags t on t.id = dt.tag_id where dt.dataset_id = d.id), '{}') as tags,
         coalesce((select array_agg(distinct upper(r.format)) from resources r where r.dataset_id = d.id and r.format is not null), '{}') as formats
    from search_points sp
    join datasets d on d.id = sp.dataset_id and d.state = 'active'`;

interface PayloadRow {
  index: IndexName;
  id: string;
  content_hash: string;
  text: string;
  resource_id: string | null;
  chunk: number | null;
  dataset_id: string;
  owner_org_id: string | null;
  private: boolean;
  license_id: string | null;
  groups: string[];
  tags: string[];
  formats: string[];
}

function toPoint(row: PayloadRow): PointRow {
  return {
    index: row.index,
    id: row.id,
    contentHash: row.content_hash,
    payload: {
      datasetId: row.dataset_id,
      orgId: row.owner_org_id,
      private: row.private,
      groups: row.groups,
      tags: row.tags,
      formats: row.formats,
      license: row.license_id,
      ...(row.resource_id ? { resourceId: row.resource_id } : {}),
      ...(row.chunk !== null ? { chunk: row.chunk } : {}),
      text: row.text,
    },
  };
}

/** The datasets' points with the payload their vectors carry (what the filters of a search read). */
export async function pointsOfDatasets(em: EntityManager, datasetIds: string[]): Promise<PointRow[]> {
  const rows = await em.execute<PayloadRow[]>(`${PAYLOAD_SQL} where sp.dataset_id = any(?::uuid[]) order by sp.index, sp.id`, [
    pgArray(datasetIds),
  ]);
  return rows.map(toPoint);
}

/** Every point of active datasets, a page at a time in (index, id) order: for rebuilding an index. */
export async function pointsPage(em: EntityManager, after: { index: string; id: string } | null, limit: number): Promise<PointRow[]> {
  const rows = await em.execute<PayloadRow[]>(
    `${PAYLOAD_SQL} ${after ? 'where (sp.index, sp.id) > (?, ?::uuid)' : ''} order by sp.index, sp.id limit ?`,
    after ? [after.index, after.id, limit] : [limit],
  );
  return rows.map(toPoint);
}
