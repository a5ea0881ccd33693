import { Migration } from '@mikro-orm/migrations';

/** The recording function, with the members in groups' snapshots (up) or without them, as before (down). */
const recordActivity = (members: boolean) =>
  `create or replace function almanac_record_activity(p_type text, p_id uuid) returns void language plpgsql as $$
       declare
         tx bigint := txid_current();
         snap jsonb;
         prev activities%rowtype;
         before jsonb;
         act text;
         kind text;
       begin
         if exists (select 1 from activities where object_id = p_id and tx_id = tx) then return; end if;
         if p_type = 'dataset' then
           snap := almanac_dataset_snapshot(p_id);
         else
           snap := ${members ? 'almanac_group_snapshot(p_id)' : '(select to_jsonb(g) from groups g where g.id = p_id)'};
         end if;
         select * into prev from activities where object_id = p_id order by seq desc limit 1;
         kind := case when p_type = 'dataset' then 'dataset' else coalesce(snap->>'kind', prev.object_type) end;
         -- A group's snapshot from before members were recorded: compared without them.
         before := case when p_type <> 'dataset' and prev.snapshot is not null and not (prev.snapshot ? 'members')
                        then prev.snapshot || jsonb_build_object('members', snap->'members') else prev.snapshot end;
         if snap is null then
           if prev.id is null or prev.snapshot is null then return; end if;
           act := 'purged';
         elsif prev.id is null or prev.snapshot is null then
           act := 'created';
         elsif almanac_snapshot_core(snap) = almanac_snapshot_core(before) then
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
         insert into activities (object_type, object_id, action, actor_id, harvest_run_id, tx_id, organization_id, state, private, creator_id, org_deleted, ${members ? 'members_only, ' : ''}snapshot)
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
           ${members ? "act = 'changed' and p_type <> 'dataset' and almanac_snapshot_core(snap - 'members') = almanac_snapshot_core(before - 'members')," : ''}
           snap);
       end $$;`;

/**
 * Membership changes are activities of their organization or category (issue 30 §1): the group's snapshot
 * gains its members (`{members: [{user, role}]}`, by user id), and `memberships` gets the same deferred
 * triggers as the other tables. An activity whose only change is its members is marked `members_only`:
 * who belongs to a group is for its members and sysadmins (`group:read-members`), so readers who may not
 * see the members do not see that activity either (src/policies/activities.ts).
 *
 * Snapshots recorded before this have no members: the first comparison with one of them leaves the
 * members out, so the upgrade itself is not taken for a change.
 */
export class Migration20261128010000_MembershipActivities extends Migration {
  override async up(): Promise<void> {
    for (const sql of [
      `alter table "activities" add column "members_only" boolean not null default false;`,
      `create or replace function almanac_group_snapshot(p_id uuid) returns jsonb language sql stable as $$
         select to_jsonb(g) || jsonb_build_object('members', coalesce(
           (select jsonb_agg(jsonb_build_object('user', m.user_id, 'role', m.role) order by m.user_id) from memberships m where m.group_id = g.id),
           '[]'::jsonb))
         from groups g where g.id = p_id $$;`,
      recordActivity(true),
      ...['insert', 'update', 'delete'].map(
        (op) =>
          `create constraint trigger "activity_${op}" after ${op} on "memberships" deferrable initially deferred for each row
             ${op === 'update' ? 'when (old.role is distinct from new.role)' : ''} execute function almanac_activity_trigger('group', 'group_id');`,
      ),
    ])
      this.addSql(sql);
  }

  override async down(): Promise<void> {
    for (const op of ['insert', 'update', 'delete']) this.addSql(`drop trigger if exists "activity_${op}" on "memberships";`);
    this.addSql(recordActivity(false));
    this.addSql('drop function if exists almanac_group_snapshot(uuid);');
    this.addSql('alter table "activities" drop column "members_only";');
  }
}
