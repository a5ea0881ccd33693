import { Migration } from '@mikro-orm/migrations';

/** A DCAT-US harvest source's `filters` and `defaults` (ckanext-datajson's configuration; issue 28). */
export class Migration20261127070000_HarvestSourceFilters extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "harvest_sources" add column "filters" jsonb not null default '{}', add column "defaults" jsonb not null default '{}';`,
    );
    // Sources set up before this kept non-public records out; an upgrade must not publish them unasked.
    // New sources import every record, as data.gov does; an operator clears this filter to do the same.
    this.addSql(`update "harvest_sources" set "filters" = '{"accessLevel": ["non-public"]}' where "type" = 'dcat-us';`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "harvest_sources" drop column "filters", drop column "defaults";`);
  }
}
