import { Migration } from '@mikro-orm/migrations';

/**
 * Facet counts kept as datasets change (issue 31 §3): counting the whole catalog's facets at a million
 * datasets read every dataset, tag, category and resource (18 s). Each facet value is numbered once
 * (`facet_values`); each active dataset's values are kept as one row of numbers (`dataset_facet_keys`,
 * written by the search sync: src/search/facet-keys.ts); triggers on that table append what each statement
 * added and took away, per value and visibility scope (organization, private: src/entities/facet-count.ts),
 * to `facet_count_changes`, which each write folds into `facet_counts`. A listing without filters sums both
 * over the scopes its caller may see; a filtered one counts its datasets' kept values
 * (src/domain/datasets/facet-counts.ts, facets.ts).
 *
 * `facet_keys_of` is the one definition of a dataset's values: organizations and categories by id (a
 * rename is read, never recounted), a theme once per IRI with its largest label, and every dataset once
 * under `datasets`, so the listing's total is kept too. A table function over a set of datasets (null:
 * all), so a bulk load is a few joins and one grouping, where a function per dataset cost a plan and six
 * lookups each (~1 ms: a quarter of an hour at a million).
 */
export class Migration20261129000000_FacetCounts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function facet_keys_of(ids uuid[]) returns table (dataset_id uuid, facet text, name text, title text) language sql stable as $$
        select k.dataset_id, k.facet, k.name, coalesce(max(k.title), '')
          from (select d.id as dataset_id, c.facet, c.name, null as title
                  from datasets d cross join lateral (values
                         ('datasets', ''),
                         ('organization', d.owner_org_id::text),
                         ('license_id', d.license_id),
                         ('access_level', d.metadata ->> 'accessLevel'),
                         ('frequency', d.metadata ->> 'accrualPeriodicity'),
                         ('publisher', d.metadata -> 'publisher' ->> 'name')) as c(facet, name)
                 where ids is null or d.id = any(ids)
                union all
                select dg.dataset_id, 'groups', dg.group_id::text, null from dataset_groups dg where ids is null or dg.dataset_id = any(ids)
                union all
                select dt.dataset_id, 'tags', t.name, null from dataset_tags dt join tags t on t.id = dt.tag_id
                 where ids is null or dt.dataset_id = any(ids)
                union all
                select r.dataset_id, 'res_format', r.format, null from resources r where ids is null or r.dataset_id = any(ids)
                union all
                select d.id, 'theme', coalesce(x.value ->> 'uri', x.value ->> 'label'), x.value ->> 'label'
                  from datasets d cross join lateral jsonb_array_elements(case when jsonb_typeof(d.metadata -> 'theme') = 'array'
                                                                           then d.metadata -> 'theme' else '[]' end) as x
                 where ids is null or d.id = any(ids)
                union all
                select d.id, 'language', x.value, null
                  from datasets d cross join lateral jsonb_array_elements_text(case when jsonb_typeof(d.metadata -> 'language') = 'array'
                                                                                then d.metadata -> 'language' else '[]' end) as x
                 where ids is null or d.id = any(ids)) as k
         where k.name is not null
         group by 1, 2, 3
      $$;`);
    // A value's key: its three parts hashed, as a unique index holds any length of name or title.
    this.addSql(`create function facet_value_key(facet text, name text, title text) returns uuid language sql immutable
                   as $$ select md5(facet || chr(31) || name || chr(31) || title)::uuid $$;`);
    this.addSql(
      `create table "facet_values" ("id" serial primary key, "facet" text not null, "name" text not null, "title" text not null, "key" uuid not null);`,
    );
    this.addSql(`alter table "facet_values" add constraint "facet_values_key_unique" unique ("key");`);
    this.addSql(
      `create table "facet_counts" ("value_id" int not null, "scope" text not null, "private" boolean not null, "n" bigint not null, constraint "facet_counts_pkey" primary key ("value_id", "scope", "private"));`,
    );
    this.addSql(
      `create table "facet_count_changes" ("id" bigserial primary key, "value_id" int not null, "scope" text not null, "private" boolean not null, "n" bigint not null);`,
    );
    this.addSql(
      `create table "dataset_facet_keys" ("dataset_id" uuid not null, "scope" text not null, "private" boolean not null, "keys" int[] not null, constraint "dataset_facet_keys_pkey" primary key ("dataset_id"));`,
    );
    this.addSql(
      `alter table "dataset_facet_keys" add constraint "dataset_facet_keys_dataset_id_foreign" foreign key ("dataset_id") references "datasets" ("id") on update cascade on delete cascade;`,
    );
    // One function for the three events: a branch names only the transition tables its event has.
    this.addSql(`
      create function facet_keys_changed() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          insert into facet_count_changes (value_id, scope, private, n)
          select k, c.scope, c.private, count(*) from added c cross join lateral unnest(c.keys) k group by 1, 2, 3;
        elsif tg_op = 'DELETE' then
          insert into facet_count_changes (value_id, scope, private, n)
          select k, c.scope, c.private, -count(*) from removed c cross join lateral unnest(c.keys) k group by 1, 2, 3;
        else
          insert into facet_count_changes (value_id, scope, private, n)
          select k, c.scope, c.private, sum(c.n)
            from (select scope, private, keys, 1 as n from added union all select scope, private, keys, -1 from removed) c
           cross join lateral unnest(c.keys) k group by 1, 2, 3 having sum(c.n) <> 0;
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger facet_keys_inserted after insert on dataset_facet_keys referencing new table as added
                   for each statement execute function facet_keys_changed();`);
    this.addSql(`create trigger facet_keys_updated after update on dataset_facet_keys referencing old table as removed new table as added
                   for each statement execute function facet_keys_changed();`);
    this.addSql(`create trigger facet_keys_deleted after delete on dataset_facet_keys referencing old table as removed
                   for each statement execute function facet_keys_changed();`);
    // Folding: one folder at a time, inside the writer's transaction (others skip it: the next write folds
    // what they left); a reader sums both tables, so counts are right before a fold as after it.
    this.addSql(`
      create function fold_facet_changes() returns void language plpgsql as $$
      declare emptied int[];
      begin
        if not pg_try_advisory_xact_lock(hashtext('facet_counts_fold')) then return; end if;
        with moved as (delete from facet_count_changes returning value_id, scope, private, n),
             summed as (select value_id, scope, private, sum(n) as n from moved group by 1, 2, 3 having sum(n) <> 0),
             upserted as (insert into facet_counts (value_id, scope, private, n) select * from summed
                          on conflict (value_id, scope, private) do update set n = facet_counts.n + excluded.n
                          returning value_id, n)
        select array_agg(value_id) into emptied from upserted where n = 0;
        -- A value no dataset of a scope has any more goes, so a read sums live rows only.
        if emptied is not null then delete from facet_counts where n = 0 and value_id = any(emptied); end if;
      end $$;`);
    // The search sync's facet write (src/search/facet-keys.ts): the values of `ids` (null: every dataset)
    // numbered, their rows rewritten where they changed or removed where the dataset is no longer active,
    // then a fold. One round trip; each statement sees what the one before waited for (a value another
    // sync numbered meanwhile). Custom plans: a generic one cannot drop `ids is null` and reads every row.
    this.addSql(`
      create function write_facet_keys(ids uuid[]) returns void language plpgsql set plan_cache_mode = force_custom_plan as $$
      begin
        delete from dataset_facet_keys k where (ids is null or k.dataset_id = any(ids))
           and not exists (select 1 from datasets d where d.id = k.dataset_id and d.state = 'active');
        insert into facet_values (facet, name, title, key)
        select distinct f.facet, f.name, f.title, facet_value_key(f.facet, f.name, f.title) from facet_keys_of(ids) f
        on conflict (key) do nothing;
        insert into dataset_facet_keys (dataset_id, scope, private, keys)
        select d.id, coalesce(d.owner_org_id::text, ''), d.private, coalesce(k.keys, '{}')
          from datasets d left join (select f.dataset_id, array_agg(v.id order by v.id) as keys from facet_keys_of(ids) f
                                       join facet_values v on v.key = facet_value_key(f.facet, f.name, f.title)
                                      group by f.dataset_id) as k on k.dataset_id = d.id
         where (ids is null or d.id = any(ids)) and d.state = 'active'
        on conflict (dataset_id) do update set scope = excluded.scope, private = excluded.private, keys = excluded.keys
         where (dataset_facet_keys.scope, dataset_facet_keys.private, dataset_facet_keys.keys)
               is distinct from (excluded.scope, excluded.private, excluded.keys);
        perform fold_facet_changes();
      end $$;`);
    this.addSql(`select write_facet_keys(null);`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "dataset_facet_keys" cascade;`);
    this.addSql(`drop function if exists write_facet_keys(uuid[]);`);
    this.addSql(`drop function if exists fold_facet_changes();`);
    this.addSql(`drop function if exists facet_keys_changed();`);
    this.addSql(`drop function if exists facet_keys_of(uuid[]);`);
    this.addSql(`drop table if exists "facet_count_changes";`);
    this.addSql(`drop table if exists "facet_counts";`);
    this.addSql(`drop table if exists "facet_values";`);
    this.addSql(`drop function if exists facet_value_key(text, text, text);`);
  }
}
