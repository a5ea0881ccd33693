import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHARED_DATA } from './shared-data.ts';

/** A record of ../shared/data/catalog/catalog.jsonl (data.gov agencies' catalogs, SOURCES.md). */
export interface CatalogRecord {
  name: string;
  title: string;
  notes: string | null;
  tags: string[];
  organization: string;
  license_id: string;
  resources: Array<{ name: string | null; format: string | null; url: string }>;
}

export const catalogRecords = (): CatalogRecord[] =>
  readFileSync(join(SHARED_DATA, 'catalog/catalog.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

export const orgName = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 90);

/** Three records' notes hold a JSON escape cut in half, which no UTF-8 text can store. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A catalog record as a POST /packages body, mapped as a harvester maps it (src/domain/harvest/record-rules.ts's
 * mapRecord does the same): a lone surrogate becomes U+FFFD; a tag holding commas is CKAN's tag_string,
 * so it is split there; a resource per URL, the first that lists it.
 */
export function packageBody(r: CatalogRecord) {
  const seen = new Set<string>();
  return {
    name: r.name,
    title: r.title,
    notes: r.notes?.replace(LONE_SURROGATE, '\ufffd') ?? null,
    ownerOrg: orgName(r.organization),
    licenseId: r.license_id,
    tags: [
      ...new Set(
        r.tags
          .flatMap((t) => t.split(','))
          .map((t) => t.trim())
          .filter(Boolean),
      ),
    ],
    resources: r.resources
      .filter((res) => !seen.has(res.url) && seen.add(res.url))
      .map((res) => ({ name: res.name, format: res.format, url: res.url })),
  };
}
