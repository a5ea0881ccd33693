import { Migration } from '@mikro-orm/migrations';

export class Migration20261121235402_Datasets extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "datasets" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(100) not null, "name_generated" boolean not null default false, "title" varchar(1000) null, "notes" text null, "owner_org_id" uuid null, "license_id" varchar(100) null, "private" boolean not null default false, "state" text check ("state" in ('draft', 'active', 'deleted')) not null, "author" varchar(300) null, "author_email" varchar(320) null, "maintainer" varchar(300) null, "maintainer_email" varchar(320) null, "version" varchar(100) null, "url" varchar(2000) null, "creator_id" uuid null, "published_at" timestamptz null, "deleted_at" timestamptz null, "deletion_incomplete" boolean not null default false, constraint "datasets_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "datasets" add constraint "datasets_name_unique" unique ("name");`);
    this.addSql(`create index "datasets_owner_org_id_index" on "datasets" ("owner_org_id");`);
    this.addSql(`create index "datasets_state_index" on "datasets" ("state");`);
    this.addSql(`create index "datasets_creator_id_index" on "datasets" ("creator_id");`);

    this.addSql(
      `create table "resources" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "dataset_id" uuid not null, "name" varchar(1000) null, "description" text null, "url" varchar(2000) null, "url_type" text check ("url_type" in ('upload', 'link')) not null, "format" varchar(100) null, "mimetype" varchar(200) null, "size" bigint null, "hash" varchar(64) null, "position" int not null, "extras" jsonb not null default '{}', constraint "resources_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "resources_dataset_id_index" on "resources" ("dataset_id");`);
    this.addSql(`alter table "resources" add constraint "resources_dataset_id_url_unique" unique ("dataset_id", "url");`);

    this.addSql(
      `create table "dataset_tags" ("dataset_id" uuid not null, "tag_id" uuid not null, constraint "dataset_tags_pkey" primary key ("dataset_id", "tag_id"));`,
    );

    this.addSql(
      `create table "dataset_groups" ("dataset_id" uuid not null, "group_id" uuid not null, constraint "dataset_groups_pkey" primary key ("dataset_id", "group_id"));`,
    );

    this.addSql(
      `alter table "datasets" add constraint "datasets_owner_org_id_foreign" foreign key ("owner_org_id") references "groups" ("id") on update cascade on delete restrict;`,
    );
    this.addSql(
      `alter table "datasets" add constraint "datasets_creator_id_foreign" foreign key ("creator_id") references "users" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "resources" add constraint "resources_dataset_id_foreign" foreign key ("dataset_id") references "datasets" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "dataset_tags" add constraint "dataset_tags_dataset_id_foreign" foreign key ("dataset_id") references "datasets" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "dataset_tags" add constraint "dataset_tags_tag_id_foreign" foreign key ("tag_id") references "tags" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "dataset_groups" add constraint "dataset_groups_dataset_id_foreign" foreign key ("dataset_id") references "datasets" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "dataset_groups" add constraint "dataset_groups_group_id_foreign" foreign key ("group_id") references "groups" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "resources" drop constraint "resources_dataset_id_foreign";`);

    this.addSql(`alter table "dataset_tags" drop constraint "dataset_tags_dataset_id_foreign";`);

    this.addSql(`alter table "dataset_groups" drop constraint "dataset_groups_dataset_id_foreign";`);

    this.addSql(`drop table if exists "datasets" cascade;`);

    this.addSql(`drop table if exists "resources" cascade;`);

    this.addSql(`drop table if exists "dataset_tags" cascade;`);

    this.addSql(`drop table if exists "dataset_groups" cascade;`);
  }
}
