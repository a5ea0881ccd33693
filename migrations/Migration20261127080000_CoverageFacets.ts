import { Migration } from '@mikro-orm/migrations';

/**
 * The record filters of GET /packages (theme, access level, frequency, language, publisher) ask
 * `metadata @> {...}`: one GIN index over the whole record serves every one of them.
 */
export class Migration20261127080000_CoverageFacets extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "datasets_metadata_index" on "datasets" using gin ("metadata" jsonb_path_ops);`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "datasets_metadata_index";`);
  }
}
