import { Migration } from '@mikro-orm/migrations';

/** Data versions of resources (issue 30 §2): one row per version a pipeline run recorded, with its schema's changes (§3). */
export class Migration20261127110000_ResourceVersions extends Migration {
  override async up(): Promise<void> {
    for (const sql of [
      `create table "resource_versions" ("resource_id" uuid not null, "n" int not null, "source_key" varchar(1000) not null, "source_url" varchar(2000) null, "preview_key" varchar(1000) not null, "schema" jsonb not null, "sha256" varchar(64) null, "size" bigint null, "row_count" bigint null, "created_at" timestamptz not null, "activity_id" uuid null, "schema_diff" jsonb null, constraint "resource_versions_pkey" primary key ("resource_id", "n"));`,
      `alter table "resource_versions" add constraint "resource_versions_resource_id_preview_key_unique" unique ("resource_id", "preview_key");`,
      `alter table "resource_versions" add constraint "resource_versions_resource_id_foreign" foreign key ("resource_id") references "resources" ("id") on update cascade on delete cascade;`,
    ])
      this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "resource_versions" cascade;`);
  }
}
