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

/** The channel a trigger on `search_points` notifies with a dataset id (migration SearchNotify). */
export const SEARCH_CHANNEL = 'almanac_search';

/** A stored point as replacePoints compares it; `stale`: a `contents` keyword document of another language. */
interface StoredPoint {
  index: IndexName;
  id: string;
  dataset_id: string;
  resource_id: string | null;
  chunk: number | null;
  content_hash: string;
  stale: boolean;
}

const pointKey = (p: { index: string; id: string }) => `${p.index}:${p.id}`;

/**
 * Replaces the points of each of `datasetIds` with its documents (none for a dataset without any: a draft,
 * a deleted one); `contents` chunks also get a keyword document, so file text is found by keywords too.
 * Only what changed is written: a reindex of an unchanged catalog rewrote every point (and its five index
 * entries) before. Each dataset is still announced on the search channel, changed points or not: the
 * other processes' followers reload its payload (who may see it, its tags) and its vectors from the rows.
 * Returns the ids per index that were deleted or written again: their old vectors are the ones to drop
 * (an unchanged point keeps its vector, which is its text's).
 */
export async function replacePoints(
  em: EntityManager,
  datasetIds: string[],
  docsByDataset: Map<string, SearchDocument[]>,
  language: string,
): Promise<Map<IndexName, Set<string>>> {
  const stored = await em.execute<StoredPoint[]>(
    `select index, id, dataset_id, resource_id, chunk, content_hash,
            index = 'contents' and text_vector is distinct from to_tsvector(?::regconfig, unaccent(text)) as stale
       from search_points where dataset_id = any(?::uuid[])`,
    [language, pgArray(datasetIds)],
  );
  const storedByKey = new Map(stored.map((p) => [pointKey(p), p]));
  const kept = new Set<string>();
  const rows = [...docsByDataset].flatMap(([datasetId, docs]) =>
    docs.flatMap((d) => {
      const row = {
        index: d.index,
        id: d.id,
        dataset_id: datasetId,
        resource_id: d.resourceId ?? null,
        chunk: d.chunk ?? null,
        text: d.text,
        hash: contentHash(d.text),
      };
      const was = storedByKey.get(pointKey(row));
      const same =
        was !== undefined &&
        !was.stale &&
        was.dataset_id === row.dataset_id &&
        was.resource_id === row.resource_id &&
        was.chunk === row.chunk &&
        was.content_hash === row.hash;
      if (!same) return [row];
      kept.add(pointKey(row));
      return [];
    }),
  );
  const gone = stored.filter((p) => !kept.has(pointKey(p)));
  const previous = new Map<IndexName, Set<string>>();
  for (const row of gone) previous.set(row.index, (previous.get(row.index) ?? new Set()).add(row.id));
  if (gone.length > 0) {
    await em.execute('delete from search_points where (index, id) in (select * from unnest(?::text[], ?::uuid[]))', [
      pgArray(gone.map((p) => p.index)),
      pgArray(gone.map((p) => p.id)),
    ]);
  }
  for (let i = 0; i < rows.length; i += 500) {
    await em.execute(
      `insert into search_points (index, id, dataset_id, resource_id, chunk, text, content_hash, updated_at, text_vector)
       select x.index, x.id::uuid, x.dataset_id::uuid, x.resource_id::uuid, x.chunk, x.text, x.hash, now(),
              case when x.index = 'contents' then to_tsvector(?::regconfig, unaccent(x.text)) end
         from jsonb_to_recordset(?::jsonb) as x(index text, id text, dataset_id text, resource_id text, chunk int, text text, hash text)`,
      [language, JSON.stringify(rows.slice(i, i + 500))],
    );
  }
  // The trigger on search_points announces a dataset whose points were written; these are the others.
  const written = new Set([...rows.map((r) => r.dataset_id), ...gone.map((p) => p.dataset_id)]);
  const quiet = datasetIds.filter((id) => !written.has(id));
  if (quiet.length > 0) await em.execute('select pg_notify(?, d::text) from unnest(?::uuid[]) as d', [SEARCH_CHANNEL, pgArray(quiet)]);
  return previous;
}

const POINT_COLUMNS = 'p.index, p.id, p.dataset_id, p.content_hash, p.text, p.resource_id, p.chunk';

/**
 * The points `pointsSql` selects (POINT_COLUMNS), each with its dataset's payload, in (index, id) order.
 * What a point carries of its dataset (categories, tags, formats) is gathered once per dataset, not once
 * per point: a dataset with a hundred resources has a hundred points. `materialized`, as inlined the
 * planner evaluates the subqueries once per point again.
 */
const payloadSql = (pointsSql: string) => `
  with sp as (${pointsSql}),
  ds as materialized (
    select d.id, d.owner_org_id, d.private, d.license_id,
           coalesce((select array_agg(dg.group_id::text) from dataset_groups dg where dg.dataset_id = d.id), '{}') as groups,
           coalesce((select array_agg(t.name) from dataset_tags dt join tags t on t.id = dt.tag_id where dt.dataset_id = d.id), '{}') as tags,
           coalesce((select array_agg(distinct upper(r.format)) from resources r where r.dataset_id = d.id and r.format is not null), '{}') as formats
      from datasets d
     where d.id in (select dataset_id from sp) and d.state = 'active')
  select sp.index, sp.id, sp.content_hash, sp.text, sp.resource_id, sp.chunk,
         ds.id as dataset_id, ds.owner_org_id, ds.private, ds.license_id, ds.groups, ds.tags, ds.formats
    from sp join ds on ds.id = sp.dataset_id
   order by sp.index, sp.id`;

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
  const rows = await em.execute<PayloadRow[]>(
    payloadSql(`select ${POINT_COLUMNS} from search_points p where p.dataset_id = any(?::uuid[])`),
    [pgArray(datasetIds)],
  );
  return rows.map(toPoint);
}

/**
 * Every point of active datasets, a page at a time in (index, id) order: for rebuilding an index. The page
 * is cut among points of active datasets, so a page of deleted datasets' points cannot come back short.
 */
export async function pointsPage(em: EntityManager, after: { index: string; id: string } | null, limit: number): Promise<PointRow[]> {
  const rows = await em.execute<PayloadRow[]>(
    payloadSql(`select ${POINT_COLUMNS} from search_points p join datasets d on d.id = p.dataset_id and d.state = 'active'
                 ${after ? 'where (p.index, p.id) > (?, ?::uuid)' : ''} order by p.index, p.id limit ?`),
    after ? [after.index, after.id, limit] : [limit],
  );
  return rows.map(toPoint);
}
