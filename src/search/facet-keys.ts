import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray } from '../db.ts';

/**
 * The facet counts' side of the search sync (migrations/Migration20261129000000_FacetCounts.ts): each active
 * dataset's facet values, numbered in `facet_values`, as one row of `dataset_facet_keys`, rewritten when they
 * change and removed when the dataset is no longer active. Triggers on that table note each change per value
 * and scope; folding sums the notes into `facet_counts`. Run inside the sync's transaction, after its keyword
 * documents: their update holds the datasets' rows, so two syncs of one dataset take turns and the second
 * reads what the first wrote.
 */

/** Numbers the values of `ids` (a bound array, or `null` for every dataset) that have none yet. */
const numberValues = (ids: string) => `
  insert into facet_values (facet, name, title, key)
  select distinct facet, name, title, facet_value_key(facet, name, title) from facet_keys_of(${ids})
  on conflict (key) do nothing`;

const upsertKeys = (ids: string, where: string) => `
  insert into dataset_facet_keys (dataset_id, scope, private, keys)
  select d.id, coalesce(d.owner_org_id::text, ''), d.private, coalesce(k.keys, '{}')
    from datasets d left join (select f.dataset_id, array_agg(v.id order by v.id) as keys from facet_keys_of(${ids}) f
                                 join facet_values v on v.key = facet_value_key(f.facet, f.name, f.title)
                                group by f.dataset_id) as k on k.dataset_id = d.id
   where ${where} and d.state = 'active'
  on conflict (dataset_id) do update set scope = excluded.scope, private = excluded.private, keys = excluded.keys
   where (dataset_facet_keys.scope, dataset_facet_keys.private, dataset_facet_keys.keys)
         is distinct from (excluded.scope, excluded.private, excluded.keys)`;

/** Brings the facet values of `datasetIds` in line with their rows. Idempotent: an unchanged dataset writes nothing. */
export async function writeFacetKeys(em: EntityManager, datasetIds: string[]): Promise<void> {
  const ids = pgArray(datasetIds);
  await em.execute(
    `delete from dataset_facet_keys k where k.dataset_id = any(?::uuid[])
        and not exists (select 1 from datasets d where d.id = k.dataset_id and d.state = 'active')`,
    [ids],
  );
  // Its own statement: one that sees the values another sync numbered meanwhile (its insert waited for them).
  await em.execute(numberValues('?::uuid[]'), [ids]);
  await em.execute(upsertKeys('?::uuid[]', 'd.id = any(?::uuid[])'), [ids, ids]);
}

/** Every active dataset at once (a bulk load). */
export async function writeAllFacetKeys(em: EntityManager): Promise<void> {
  await em.execute(
    `delete from dataset_facet_keys k where not exists (select 1 from datasets d where d.id = k.dataset_id and d.state = 'active')`,
  );
  await em.execute(numberValues('null'));
  await em.execute(upsertKeys('null', 'true'));
  await foldFacetChanges(em);
}

/**
 * Sums the noted changes into `facet_counts`. One folder at a time (others skip: the next sync folds
 * what they left); a reader sums both tables, so counts are right before a fold as after it.
 */
export async function foldFacetChanges(em: EntityManager): Promise<void> {
  await em.transactional(async (tx) => {
    const [lock] = await tx.execute<Array<{ locked: boolean }>>(
      `select pg_try_advisory_xact_lock(hashtext('facet_counts_fold')) as locked`,
    );
    if (!lock?.locked) return;
    const emptied = await tx.execute<Array<{ value_id: number; scope: string; private: boolean; emptied: boolean }>>(`
      with moved as (delete from facet_count_changes returning value_id, scope, private, n),
           summed as (select value_id, scope, private, sum(n) as n from moved group by 1, 2, 3 having sum(n) <> 0)
      insert into facet_counts (value_id, scope, private, n) select * from summed
      on conflict (value_id, scope, private) do update set n = facet_counts.n + excluded.n
      returning value_id, scope, private, n = 0 as emptied`);
    // A value no dataset of a scope has any more goes, so a read sums live rows only.
    const gone = emptied.filter((row) => row.emptied);
    if (gone.length === 0) return;
    await tx.execute(
      `delete from facet_counts c using unnest(?::int[], ?::text[], ?::boolean[]) as g(value_id, scope, private)
        where c.n = 0 and (c.value_id, c.scope, c.private) = (g.value_id, g.scope, g.private)`,
      [pgArray(gone.map((g) => String(g.value_id))), pgArray(gone.map((g) => g.scope)), pgArray(gone.map((g) => String(g.private)))],
    );
  });
}
