import { Migration } from '@mikro-orm/migrations';

/**
 * The facet keys' statements planned once per connection, not at every sync: `write_facet_keys` ran with
 * `plan_cache_mode = force_custom_plan` so that `ids is null` (the whole catalog) planned its own way, and
 * each sync then planned its two large statements afresh (~4 ms of PostgreSQL's CPU a call, ~1.5 ms a
 * created dataset, bench bulk-create with pg_stat_statements). Now `facet_keys_of` takes ids only, a sync's
 * statements keep PL/pgSQL's cached plans, and the whole catalog is written as syncs write it, in batches.
 * New values are inserted in key order: two syncs creating the same values never wait on each other in a
 * circle (a deadlock).
 */
export class Migration20261129020000_FacetKeysPlans extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create or replace function facet_keys_of(ids uuid[]) returns table (dataset_id uuid, facet text, name text, title text) language sql stable as $$
        select k.dataset_id, k.facet, k.name, coalesce(max(k.title), '')
          from (select d.id as dataset_id, c.facet, c.name, null as title
                  from datasets d cross join lateral (values
                         ('datasets', ''),
                         ('organization', d.owner_org_id::text),
                         ('license_id', d.license_id),
                         ('access_level', d.metadata ->> 'accessLevel'),
                         ('frequency', d.metadata ->> 'accrualPeriodicity'),
                         ('publisher', d.metadata -> 'publisher' ->> 'name')) as c(facet, name)
                 where d.id = any(ids)
                union all
                select dg.dataset_id, 'groups', dg.group_id::text, null from dataset_groups dg where dg.dataset_id = any(ids)
                union all
                select dt.dataset_id, 'tags', t.name, null from dataset_tags dt join tags t on t.id = dt.tag_id
                 where dt.dataset_id = any(ids)
                union all
                select r.dataset_id, 'res_format', r.format, null from resources r where r.dataset_id = any(ids)
                union all
                select d.id, 'theme', coalesce(x.value ->> 'uri', x.value ->> 'label'), x.value ->> 'label'
                  from datasets d cross join lateral jsonb_array_elements(case when jsonb_typeof(d.metadata -> 'theme') = 'array'
                                                                           then d.metadata -> 'theme' else '[]' end) as x
                 where d.id = any(ids)
                union all
                select d.id, 'language', x.value, null
                  from datasets d cross join lateral jsonb_array_elements_text(case when jsonb_typeof(d.metadata -> 'language') = 'array'
                                                                                then d.metadata -> 'language' else '[]' end) as x
                 where d.id = any(ids)) as k
         where k.name is not null
         group by 1, 2, 3
      $$;`);
    this.addSql(`
      create or replace function write_facet_keys(ids uuid[]) returns void language plpgsql set plan_cache_mode = force_generic_plan as $$
      declare
        batch uuid[];
      begin
        if ids is null then
          delete from dataset_facet_keys k where not exists (select 1 from datasets d where d.id = k.dataset_id and d.state = 'active');
          for batch in select array_agg(s.id) from (select d.id, (row_number() over (order by d.id)) / 5000 as b
                                                      from datasets d where d.state = 'active') s group by s.b loop
            perform write_facet_keys(batch);
          end loop;
          return;
        end if;
        delete from dataset_facet_keys k where k.dataset_id = any(ids)
           and not exists (select 1 from datasets d where d.id = k.dataset_id and d.state = 'active');
        insert into facet_values (facet, name, title, key)
        select distinct f.facet, f.name, f.title, facet_value_key(f.facet, f.name, f.title) as key from facet_keys_of(ids) f
         order by key
        on conflict (key) do nothing;
        insert into dataset_facet_keys (dataset_id, scope, private, keys)
        select d.id, coalesce(d.owner_org_id::text, ''), d.private, coalesce(k.keys, '{}')
          from datasets d left join (select f.dataset_id, array_agg(v.id order by v.id) as keys from facet_keys_of(ids) f
                                       join facet_values v on v.key = facet_value_key(f.facet, f.name, f.title)
                                      group by f.dataset_id) as k on k.dataset_id = d.id
         where d.id = any(ids) and d.state = 'active'
        on conflict (dataset_id) do update set scope = excluded.scope, private = excluded.private, keys = excluded.keys
         where (dataset_facet_keys.scope, dataset_facet_keys.private, dataset_facet_keys.keys)
               is distinct from (excluded.scope, excluded.private, excluded.keys);
        perform fold_facet_changes();
      end $$;`);
  }

  override async down(): Promise<void> {
    // Nothing to undo: these definitions answer every call the code before them makes (ids, or null for
    // the whole catalog) with the same rows, on the same tables.
  }
}
