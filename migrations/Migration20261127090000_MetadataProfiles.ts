import { Migration } from '@mikro-orm/migrations';

/** Metadata profiles (issue 28 §1): the site's and each organization's extra fields; resources get their profile values' column. */
export class Migration20261127090000_MetadataProfiles extends Migration {
  override async up(): Promise<void> {
    for (const sql of [
      `create table "metadata_profiles" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "scope" varchar(64) not null, "organization_id" uuid null, "dataset_fields" jsonb not null default '[]', "resource_fields" jsonb not null default '[]', constraint "metadata_profiles_pkey" primary key ("id"));`,
      `alter table "metadata_profiles" add constraint "metadata_profiles_scope_unique" unique ("scope");`,
      `create index "metadata_profiles_organization_id_index" on "metadata_profiles" ("organization_id");`,
      `alter table "metadata_profiles" add constraint "metadata_profiles_organization_id_foreign" foreign key ("organization_id") references "groups" ("id") on update cascade on delete cascade;`,
      `alter table "resources" add column "custom_fields" jsonb not null default '{}';`,
    ])
      this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "resources" drop column "custom_fields";`);
    this.addSql(`drop table if exists "metadata_profiles" cascade;`);
  }
}
