import { Migration } from '@mikro-orm/migrations';

export class Migration20261122035017_SearchPoints extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "embeddings" ("model" varchar(200) not null, "content_hash" varchar(64) not null, "dimensions" int not null, "vector" bytea not null, "created_at" timestamptz not null, constraint "embeddings_pkey" primary key ("model", "content_hash"));`,
    );

    this.addSql(
      `create table "search_points" ("index" text check ("index" in ('packages', 'resources', 'contents')) not null, "id" uuid not null, "dataset_id" uuid not null, "resource_id" uuid null, "chunk" int null, "text" text not null, "content_hash" varchar(64) not null, "text_vector" tsvector null, "updated_at" timestamptz not null, constraint "search_points_pkey" primary key ("index", "id"));`,
    );
    this.addSql(`create index "search_points_dataset_id_index" on "search_points" ("dataset_id");`);
    this.addSql(`create index "search_points_resource_id_index" on "search_points" ("resource_id");`);
    this.addSql(`create index "search_points_text_vector_index" on "search_points" using gin ("text_vector");`);

    this.addSql(
      `alter table "search_points" add constraint "search_points_dataset_id_foreign" foreign key ("dataset_id") references "datasets" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "search_points" add constraint "search_points_resource_id_foreign" foreign key ("resource_id") references "resources" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "embeddings" cascade;`);

    this.addSql(`drop table if exists "search_points" cascade;`);
  }
}
