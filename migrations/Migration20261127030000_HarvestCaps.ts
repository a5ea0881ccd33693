import { Migration } from '@mikro-orm/migrations';

/** A harvest run's caps (pages, minutes) per source, and what it needs to see the source going round. */
export class Migration20261127030000_HarvestCaps extends Migration {
  override async up(): Promise<void> {
    for (const sql of [
      `alter table "harvest_sources" add column "max_pages" int not null default 10000, add column "max_run_minutes" int not null default 1440;`,
      `alter table "harvest_run_records" add column "page" int null;`,
      `create table "harvest_run_pages" ("run_id" uuid not null, "cursor_digest" varchar(64) not null, "page" int not null, constraint "harvest_run_pages_pkey" primary key ("run_id", "cursor_digest"));`,
      `alter table "harvest_run_pages" add constraint "harvest_run_pages_run_id_foreign" foreign key ("run_id") references "harvest_runs" ("id") on update cascade on delete cascade;`,
    ])
      this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "harvest_run_pages" cascade;`);
    this.addSql(`alter table "harvest_run_records" drop column "page";`);
    this.addSql(`alter table "harvest_sources" drop column "max_pages", drop column "max_run_minutes";`);
  }
}
