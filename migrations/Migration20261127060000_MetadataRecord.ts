import { Migration } from '@mikro-orm/migrations';

/** The full DCAT-AP / DCAT-US record (issue 28): metadata, extras and profile fields, and the coverage filters' columns. */
export class Migration20261127060000_MetadataRecord extends Migration {
  override async up(): Promise<void> {
    for (const sql of [
      `alter table "datasets" add column "metadata" jsonb not null default '{}', add column "extras" jsonb not null default '[]', add column "custom_fields" jsonb not null default '{}', add column "temporal_start" timestamptz null, add column "temporal_end" timestamptz null, add column "spatial_box" box null;`,
      `create index "datasets_spatial_box_index" on "datasets" using gist ("spatial_box");`,
      `create index "datasets_temporal_range_index" on "datasets" using gist (tstzrange("temporal_start", "temporal_end", '[]'));`,
      `alter table "resources" add column "metadata" jsonb not null default '{}', add column "custom_extras" jsonb not null default '[]';`,
    ])
      this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "resources" drop column "metadata", drop column "custom_extras";`);
    this.addSql(
      `alter table "datasets" drop column "metadata", drop column "extras", drop column "custom_fields", drop column "temporal_start", drop column "temporal_end", drop column "spatial_box";`,
    );
  }
}
