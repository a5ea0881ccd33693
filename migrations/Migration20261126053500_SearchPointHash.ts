import { Migration } from '@mikro-orm/migrations';

/** The vector backlog looks up every point of the texts it embedded by hash; without this each page scanned them all. */
export class Migration20261126053500_SearchPointHash extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "search_points_content_hash_index" on "search_points" ("content_hash");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "search_points_content_hash_index";`);
  }
}
