import { Migration } from '@mikro-orm/migrations';

/**
 * Search that catches up after a fault (issue 31): datasets whose vectors the vector index missed while it
 * was out of reach (src/search/index-outbox.ts), and an index of the active datasets committed without
 * their keyword document (a process killed between a creation's commit and its search write;
 * src/search/search-repair.ts).
 */
export class Migration20261128020000_SearchCatchUp extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "vector_index_pending" ("dataset_id" uuid not null, "since" timestamptz not null, constraint "vector_index_pending_pkey" primary key ("dataset_id"));`,
    );
    this.addSql(`create index "datasets_unsynced_index" on "datasets" ("id") where "state" = 'active' and "search_vector" is null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "datasets_unsynced_index";`);
    this.addSql(`drop table if exists "vector_index_pending" cascade;`);
  }
}
