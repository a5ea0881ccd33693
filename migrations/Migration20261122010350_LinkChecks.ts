import { Migration } from '@mikro-orm/migrations';

export class Migration20261122010350_LinkChecks extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "link_checks" ("resource_id" uuid not null, "url" varchar(2000) not null, "status" text check ("status" in ('ok', 'broken', 'timeout')) not null, "http_status" int null, "checked_at" timestamptz not null, "latency_ms" int not null, "error" varchar(1000) null, constraint "link_checks_pkey" primary key ("resource_id"));`,
    );
    this.addSql(`create index "link_checks_status_index" on "link_checks" ("status");`);
    this.addSql(`create index "link_checks_checked_at_index" on "link_checks" ("checked_at");`);

    this.addSql(
      `alter table "link_checks" add constraint "link_checks_resource_id_foreign" foreign key ("resource_id") references "resources" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "link_checks" cascade;`);
  }
}
