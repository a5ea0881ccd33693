import { Migration } from '@mikro-orm/migrations';

export class Migration20261122045611_SearchNotify extends Migration {
  override async up(): Promise<void> {
    // Every change to a dataset's search points, a purge's cascade included, tells the processes that
    // keep an in-process vector index to reload that dataset. PostgreSQL sends a notification at commit,
    // once per payload per transaction, so a rewrite of many points is one message.
    this.addSql(`create function "search_points_notify"() returns trigger language plpgsql as $$
      begin
        perform pg_notify('almanac_search', coalesce(new.dataset_id, old.dataset_id)::text);
        return null;
      end $$;`);
    this.addSql(`create trigger "search_points_notify" after insert or update or delete on "search_points"
      for each row execute function "search_points_notify"();`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists "search_points_notify" on "search_points";`);
    this.addSql(`drop function if exists "search_points_notify"();`);
  }
}
