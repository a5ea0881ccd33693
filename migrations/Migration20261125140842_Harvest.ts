import { Migration } from '@mikro-orm/migrations';

export class Migration20261125140842_Harvest extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "harvest_sources" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(100) not null, "type" text check ("type" in ('ckan', 'dcat-us', 'dcat-ap')) not null, "url" varchar(2000) not null, "organization_id" uuid null, "delete_removed" boolean not null default false, "schedule" varchar(100) null, constraint "harvest_sources_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "harvest_sources" add constraint "harvest_sources_name_unique" unique ("name");`);
    this.addSql(`create index "harvest_sources_organization_id_index" on "harvest_sources" ("organization_id");`);

    this.addSql(
      `create table "harvest_runs" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "source_id" uuid not null, "workflow_id" varchar(200) not null, "run_id" varchar(200) not null, "status" text check ("status" in ('running', 'succeeded', 'failed')) not null, "started_at" timestamptz not null, "finished_at" timestamptz null, "since" timestamptz null, "pages" int not null default 0, "reason" varchar(1000) null, constraint "harvest_runs_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "harvest_runs" add constraint "harvest_runs_run_id_unique" unique ("run_id");`);
    this.addSql(`create index "harvest_runs_source_id_started_at_index" on "harvest_runs" ("source_id", "started_at");`);

    this.addSql(
      `create table "harvest_run_records" ("run_id" uuid not null, "remote_id" varchar(1000) not null, "outcome" text check ("outcome" in ('created', 'updated', 'unchanged', 'failed', 'removed')) not null, "dataset_id" uuid null, "title" varchar(1000) null, "reason" varchar(1000) null, "at" timestamptz not null, constraint "harvest_run_records_pkey" primary key ("run_id", "remote_id"));`,
    );

    this.addSql(
      `alter table "harvest_sources" add constraint "harvest_sources_organization_id_foreign" foreign key ("organization_id") references "groups" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "harvest_runs" add constraint "harvest_runs_source_id_foreign" foreign key ("source_id") references "harvest_sources" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "harvest_run_records" add constraint "harvest_run_records_run_id_foreign" foreign key ("run_id") references "harvest_runs" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "datasets" add column "harvest_source_id" uuid null, add column "harvest_remote_id" varchar(1000) null, add column "harvest_remote_url" varchar(2000) null, add column "harvested_at" timestamptz null, add column "harvest_hash" varchar(64) null;`,
    );
    this.addSql(
      `alter table "datasets" add constraint "datasets_harvest_source_id_foreign" foreign key ("harvest_source_id") references "harvest_sources" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "datasets" add constraint "datasets_harvest_remote_unique" unique ("harvest_source_id", "harvest_remote_id");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "harvest_runs" drop constraint "harvest_runs_source_id_foreign";`);

    this.addSql(`alter table "datasets" drop constraint "datasets_harvest_source_id_foreign";`);

    this.addSql(`alter table "harvest_run_records" drop constraint "harvest_run_records_run_id_foreign";`);

    this.addSql(`drop table if exists "harvest_sources" cascade;`);

    this.addSql(`drop table if exists "harvest_runs" cascade;`);

    this.addSql(`drop table if exists "harvest_run_records" cascade;`);

    this.addSql(`alter table "datasets" drop constraint "datasets_harvest_remote_unique";`);
    this.addSql(
      `alter table "datasets" drop column "harvest_source_id", drop column "harvest_remote_id", drop column "harvest_remote_url", drop column "harvested_at", drop column "harvest_hash";`,
    );
  }
}
