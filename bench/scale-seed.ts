/**
 * The scale bench's load: the real catalog, indexed as the app indexes it, then copied inside PostgreSQL
 * up to `total` datasets. Copy k of record i gets the name suffix `-k-i` and a region and year in its
 * title (as bench/catalog-seed.ts names them); its tags, resources and search points are the record's
 * own. Copies are written with `insert … select`, with triggers off (`session_replication_role =
 * replica`): a million rows through the app's write path would record a million activities and take
 * hours, and none of that is what the bench measures. Each copy's keyword document is then written by
 * the app's own statement (src/search/keyword-document.ts), so it is what the app would have written.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { writeAllFacetKeys } from '../src/search/facet-keys.ts';
import { writeAllKeywordDocuments } from '../src/search/keyword-document.ts';

/** Copies made per transaction: a progress line each, and no statement holds millions of rows. */
const COPIES_PER_STEP = 40;

const REGIONS = `array['North', 'South', 'East', 'West', 'Central', 'Pacific', 'Atlantic', 'Mountain', 'Gulf', 'Plains']`;

/** A table's columns that an insert may name (generated columns cannot be written). */
async function columnsOf(em: EntityManager, table: string): Promise<string[]> {
  const rows = await em.execute<Array<{ name: string }>>(
    `select column_name as name from information_schema.columns
      where table_schema = current_schema() and table_name = ? and is_generated = 'NEVER' order by ordinal_position`,
    [table],
  );
  return rows.map((r) => r.name);
}

/** `cols` with some replaced by expressions, as one select list. */
const selectList = (cols: string[], alias: string, replaced: Record<string, string>) =>
  cols.map((c) => (c in replaced ? replaced[c] : `${alias}."${c}"`)).join(', ');

/**
 * Copies the `base` datasets (every active dataset when the copy starts) until there are `total`;
 * `progress` hears after each step. Returns the seconds spent copying and writing keyword documents.
 */
export async function replicateCatalog(em: EntityManager, total: number, language: string, progress: (message: string) => void) {
  const [{ n: baseCount } = { n: 0 }] = await em.execute<Array<{ n: number }>>(
    `select count(*)::int as n from datasets where state = 'active'`,
  );
  if (baseCount === 0) throw new Error('nothing to replicate: seed the real catalog first');
  await em.execute(
    `create table if not exists bench_base as select id, row_number() over (order by id) as i from datasets where state = 'active'`,
  );
  const datasetCols = await columnsOf(em, 'datasets');
  const resourceCols = await columnsOf(em, 'resources');
  const pointCols = await columnsOf(em, 'search_points');
  const copies = Math.ceil(total / baseCount) - 1;
  let started = performance.now();
  for (let first = 1; first <= copies; first += COPIES_PER_STEP) {
    const last = Math.min(copies, first + COPIES_PER_STEP - 1);
    await em.transactional(async (tx) => {
      await tx.execute(`set local session_replication_role = replica`);
      // Which copy of which record, under which id; the last copy stops at `total`.
      await tx.execute(`drop table if exists bench_copy`);
      await tx.execute(
        `create temp table bench_copy on commit drop as
           select b.id as base, b.i, k, gen_random_uuid() as id from bench_base b cross join generate_series(?::int, ?::int) as k
            where k * ? + b.i <= ?`,
        [first, last, baseCount, total],
      );
      await tx.execute(
        `insert into datasets (${datasetCols.map((c) => `"${c}"`).join(', ')})
         select ${selectList(datasetCols, 'd', {
           id: 'c.id',
           name: `left(d.name, 80) || '-' || c.k || '-' || c.i`,
           title: `left(d.title || ' — ' || (${REGIONS})[1 + c.k % 10] || ' ' || (2000 + c.k % 25), 1000)`,
           search_vector: 'null',
         })}
           from bench_copy c join datasets d on d.id = c.base`,
      );
      await tx.execute(
        `insert into dataset_tags (dataset_id, tag_id) select c.id, t.tag_id from bench_copy c join dataset_tags t on t.dataset_id = c.base`,
      );
      await tx.execute(
        `insert into resources (${resourceCols.map((c) => `"${c}"`).join(', ')})
         select ${selectList(resourceCols, 'r', { id: 'gen_random_uuid()', dataset_id: 'c.id' })}
           from bench_copy c join resources r on r.dataset_id = c.base`,
      );
      // Same texts, so the same cached vectors; a copy's points name no resource, as the catalog's links have no file text.
      await tx.execute(
        `insert into search_points (${pointCols.map((c) => `"${c}"`).join(', ')})
         select ${selectList(pointCols, 'p', { id: 'gen_random_uuid()', dataset_id: 'c.id', resource_id: 'null' })}
           from bench_copy c join search_points p on p.dataset_id = c.base`,
      );
    });
    progress(`copies ${first}–${last} of ${copies} written`);
  }
  await em.execute(`drop table bench_base`);
  const copySeconds = (performance.now() - started) / 1000;
  started = performance.now();
  const documents = await writeAllKeywordDocuments(em, language);
  const documentSeconds = (performance.now() - started) / 1000;
  progress(`${documents} keyword documents written in ${documentSeconds.toFixed(0)} s; facet counts`);
  started = performance.now();
  await writeAllFacetKeys(em);
  progress(`facet counts written in ${((performance.now() - started) / 1000).toFixed(0)} s; vacuum analyze`);
  started = performance.now();
  await em.execute('vacuum analyze');
  return { copySeconds, documentSeconds, documents, vacuumSeconds: (performance.now() - started) / 1000 };
}
