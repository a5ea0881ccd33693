import { Migration } from '@mikro-orm/migrations';

export class Migration20261125143637_LongTags extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "tags" alter column "name" type varchar(500) using ("name"::varchar(500));`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "tags" alter column "name" type varchar(100) using ("name"::varchar(100));`);
  }
}
