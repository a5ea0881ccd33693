import { Migration } from '@mikro-orm/migrations';

export class Migration20261122001226_Search extends Migration {
  override async up(): Promise<void> {
    // Keyword search: accent-insensitive documents and trigram matching for typos in names and titles.
    this.addSql(`create extension if not exists "unaccent";`);
    this.addSql(`create extension if not exists "pg_trgm";`);
    this.addSql(`alter table "datasets" add column "search_vector" tsvector null;`);
    this.addSql(`create index "datasets_search_vector_index" on "datasets" using gin ("search_vector");`);
    this.addSql(`create index "datasets_name_trgm_index" on "datasets" using gin ("name" gin_trgm_ops);`);
    this.addSql(`create index "datasets_title_trgm_index" on "datasets" using gin ("title" gin_trgm_ops);`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "datasets_search_vector_index";`);
    this.addSql(`drop index "datasets_name_trgm_index";`);
    this.addSql(`drop index "datasets_title_trgm_index";`);
    this.addSql(`alter table "datasets" drop column "search_vector";`);
  }
}
