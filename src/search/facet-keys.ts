import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray } from '../db.ts';

/**
 * The facet counts' side of the search sync (migrations/Migration20261129000000_FacetCounts.ts): each active
 * dataset's facet values as one row of `dataset_facet_keys`, rewritten when it changes and removed when it is
 * no longer active. Triggers on that table note each change per value and scope; folding sums the notes
 * into `facet_counts`. Run inside the sync's transaction, after its keyword documents: their update holds
 * the datasets' rows, so two syncs of one dataset take turns and the second reads what the first wrote.
 */
const upsertKeys = (ids: string, where: string) => `
  insert into dataset_facet_keys (dataset_id, scope, private, keys)
  select d.id, coalesce(d.owner_org_id::text, ''), d.private, coalesce(k.keys, '[]')
    from datasets d left join facet_keys_of(${ids}) k on k.dataset_id = d.id
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
  await em.execute(upsertKeys('?::uuid[]', 'd.id = any(?::uuid[])'), [ids, ids]);
}

/** Every active dataset at once (a bulk load). */
export async function writeAllFacetKeys(em: EntityManager): Promise<void> {
  await em.execute(
    `delete from dataset_facet_keys k where not exists (select 1 from datasets d where d.id = k.dataset_id and d.state = 'active')`,
  );
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
    const emptied = await tx.execute<Array<{ key: string }>>(`
      with moved as (delete from facet_count_changes returning facet, name, title, scope, private, n),
           summed as (select facet, name, title, scope, private, sum(n) as n from moved group by 1, 2, 3, 4, 5 having sum(n) <> 0)
      insert into facet_counts (facet, name, title, scope, private, n) select * from summed
      on conflict (facet, name, title, scope, private) do update set n = facet_counts.n + excluded.n
      returning case when n = 0 then jsonb_build_array(facet, name, title, scope, private) end as key`);
    // A value no dataset has any more goes, so a read sums live rows only.
    const keys = emptied.flatMap((row) => (row.key ? [row.key] : []));
    if (keys.length === 0) return;
    await tx.execute(
      `delete from facet_counts c using jsonb_array_elements(?::jsonb) k
        where c.n = 0 and (c.facet, c.name, c.title, c.scope, c.private) = (k ->> 0, k ->> 1, k ->> 2, k ->> 3, (k ->> 4)::boolean)`,
      [JSON.stringify(keys)],
    );
  });
}
