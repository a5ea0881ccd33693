import { Migration } from '@mikro-orm/migrations';

/**
 * Activities (issue 30 §1): every change to a dataset (its row, resources, tags, categories) or to an
 * organization or category is recorded by the database itself, at commit, in the transaction that made
 * it. Deferred constraint triggers mark what a transaction touched; the first to fire at commit records
 * the object's state after the whole transaction (one activity per object and transaction, however many
 * statements), and nothing when the state is the same as the last activity's. A rolled-back change
 * leaves none, and no path that writes (REST, CKAN, MCP, harvests, workflows, the CLI) can skip it.
 *
 * The snapshot of a dataset is `almanac_dataset_snapshot(id)`, the same statement as the live read,
 * installed by the application at start (src/domain/activity/snapshot-function.ts) so it follows the
 * record as it grows. Who made the change is the transaction's `almanac.actor` / `almanac.harvest_run`
 * (src/domain/activity/actor-scope.ts); a change with neither is the system's.
 */
export class Migration20261127100000_Activities extends Migration {
  override async up(): Promise<void> {
    for (const sql of [
      `create table "activities" (
         "id" uuid not null default gen_random_uuid(),
         "seq" bigserial not null,
         "object_type" varchar(16) not null,
         "object_id" uuid not null,
         "action" varchar(16) not null,
         "actor_id" uuid null,
         "harvest_run_id" uuid null,
         "tx_id" bigint not null,
         "created_at" timestamptz not null default clock_timestamp(),
         "organization_id" uuid null,
         "state" varchar(16) null,
         "private" boolean null,
         "creator_id" uuid null,
         "org_deleted" boolean not null default false,
         "snapshot" jsonb null,
         constraint "activities_pkey" primary key ("id"));`,
      `create unique index "activities_object_tx" on "activities" ("object_id", "tx_id");`,
      `create index "activities_object_seq" on "activities" ("object_id", "seq");`,
      `create index "activities_actor_seq" on "activities" ("actor_id", "seq");`,
      `create index "activities_organization_seq" on "activities" ("organization_id", "seq");`,
      `create index "activities_type_seq" on "activities" ("object_type", "seq");`,
      // What a comparison ignores: the system's own bookkeeping (dates it stamps, pipeline state in resources' extras).
      `create or replace function almanac_snapshot_core(s jsonb) returns jsonb language sql immutable as $$
         select case when s is null then null else
           (s - 'updated_at' - 'harvested_at' - 'org_role')
           || jsonb_build_object('resources', coalesce((select jsonb_agg(r - 'updatedAt' - 'extras' order by ord)
                                                          from jsonb_array_elements(s->'resources') with ordinality as x(r, ord)), '[]'::jsonb))
         end $$;`,
      `create or replace function almanac_record_activity(p_type text, p_id uuid) returns void language plpgsql as $$
       declare
         tx bigint := txid_current();
         snap jsonb;
         prev activities%rowtype;
         act text;
         kind text;
       begin
         if exists (select 1 from activities where object_id = p_id and tx_id = tx) then return; end if;
         if p_type = 'dataset' then
           snap := almanac_dataset_snapshot(p_id);
         else
           select to_jsonb(g) into snap from groups g where g.id = p_id;
         end if;
         select * into prev from activities where object_id = p_id order by seq desc limit 1;
         kind := case when p_type = 'dataset' then 'dataset' else coalesce(snap->>'kind', prev.object_type) end;
         if snap is null then
           if prev.id is null or prev.snapshot is null then return; end if;
           act := 'purged';
         elsif prev.id is null or prev.snapshot is null then
           act := 'created';
         elsif almanac_snapshot_core(snap) = almanac_snapshot_core(prev.snapshot) then
           return;
         elsif prev.snapshot->>'state' = 'draft' and snap->>'state' = 'active' then
           act := 'published';
         elsif prev.snapshot->>'state' <> 'deleted' and snap->>'state' = 'deleted' then
           act := 'deleted';
         elsif prev.snapshot->>'state' = 'deleted' and snap->>'state' = 'active' then
           act := 'restored';
         else
           act := 'changed';
         end if;
         insert into activities (object_type, object_id, action, actor_id, harvest_run_id, tx_id, organization_id, state, private, creator_id, org_deleted, snapshot)
         values (
           kind, p_id, act,
           nullif(current_setting('almanac.actor', true), '')::uuid,
           nullif(current_setting('almanac.harvest_run', true), '')::uuid,
           tx,
           case when snap is null then prev.organization_id
                when p_type = 'dataset' then (snap->>'org_id')::uuid else p_id end,
           coalesce(snap->>'state', prev.state),
           coalesce((snap->>'private')::boolean, prev.private),
           coalesce((snap->>'creator_id')::uuid, prev.creator_id),
           case when snap is null then prev.org_deleted else coalesce(snap->>'org_state' = 'deleted', false) end,
           snap);
       end $$;`,
      // The column holding the dataset's (or group's) id is the trigger's argument.
      `create or replace function almanac_activity_trigger() returns trigger language plpgsql as $$
       begin
         perform almanac_record_activity(tg_argv[0], (coalesce(to_jsonb(new), to_jsonb(old)) ->> tg_argv[1])::uuid);
         return null;
       end $$;`,
      ...triggers('datasets', 'dataset', 'id', ['search_vector', 'updated_at', 'harvested_at']),
      ...triggers('resources', 'dataset', 'dataset_id', ['extras', 'updated_at']),
      ...triggers('dataset_tags', 'dataset', 'dataset_id', []),
      ...triggers('dataset_groups', 'dataset', 'dataset_id', []),
      ...triggers('groups', 'group', 'id', ['updated_at']),
    ])
      this.addSql(sql);
  }

  override async down(): Promise<void> {
    for (const table of ['datasets', 'resources', 'dataset_tags', 'dataset_groups', 'groups']) {
      for (const op of ['insert', 'update', 'delete']) this.addSql(`drop trigger if exists "activity_${op}" on "${table}";`);
    }
    this.addSql('drop function if exists almanac_activity_trigger();');
    this.addSql('drop function if exists almanac_record_activity(text, uuid);');
    this.addSql('drop function if exists almanac_snapshot_core(jsonb);');
    this.addSql('drop table if exists "activities" cascade;');
  }
}

/** Insert, update (when a column other than `ignored` changed) and delete, each deferred to commit. */
function triggers(table: string, type: string, idColumn: string, ignored: string[]) {
  const without = (row: string) => ignored.reduce((sql, column) => `${sql} - '${column}'`, `to_jsonb(${row})`);
  const create = (op: string, when = '') =>
    `create constraint trigger "activity_${op}" after ${op} on "${table}" deferrable initially deferred for each row ${when}
       execute function almanac_activity_trigger('${type}', '${idColumn}');`;
  return [create('insert'), create('update', `when ((${without('old')}) is distinct from (${without('new')}))`), create('delete')];
}
