import { Migration } from '@mikro-orm/migrations';

/**
 * The schema-change hold (issue 30 §3): a version of a published resource with a breaking change waits
 * for its editor (`review` pending, then accepted, declined, or superseded by newer bytes). `served` is what
 * the resource's record said of the version's bytes and preview, so that either one can be served again.
 */
export class Migration20261128000000_VersionReview extends Migration {
  override async up(): Promise<void> {
    for (const sql of [
      `alter table "resource_versions" add column "review" text check ("review" in ('pending', 'accepted', 'declined', 'superseded')) null, add column "reviewed_by" uuid null, add column "reviewed_at" timestamptz null, add column "served" jsonb null;`,
      `alter table "resource_versions" add constraint "resource_versions_reviewed_by_foreign" foreign key ("reviewed_by") references "users" ("id") on update cascade on delete set null;`,
      `create unique index "resource_versions_one_pending" on "resource_versions" ("resource_id") where "review" = 'pending';`,
    ])
      this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "resource_versions_one_pending";`);
    this.addSql(
      `alter table "resource_versions" drop constraint if exists "resource_versions_reviewed_by_foreign", drop column "served", drop column "reviewed_at", drop column "reviewed_by", drop column "review";`,
    );
  }
}
