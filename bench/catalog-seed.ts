/**
 * Loads ../shared/data/catalog (1,878 real dataset records) into the database and replicates it with
 * variations up to `total` datasets: replica k of a record gets the name suffix `-k` and a region and
 * year in its title, so replicas are distinct documents that share the real vocabulary.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { writeAllFacetKeys } from '../src/search/facet-keys.ts';
import { writeAllKeywordDocuments } from '../src/search/keyword-document.ts';
import { SHARED_DATA } from '../test/helpers/shared-data.ts';

interface CatalogRecord {
  name: string;
  title: string;
  notes?: string;
  tags?: string[];
  organization: string;
  license_id?: string;
  resources?: Array<{ name?: string; format?: string; url: string }>;
}

const CATALOG = path.join(SHARED_DATA, 'catalog/catalog.jsonl');
const REGIONS = ['North', 'South', 'East', 'West', 'Central', 'Pacific', 'Atlantic', 'Mountain', 'Gulf', 'Plains'];

const slug = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80) || 'org';

export function readCatalog(): CatalogRecord[] {
  return fs
    .readFileSync(CATALOG, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

async function insertRows(em: EntityManager, table: string, columns: string[], rows: unknown[][]) {
  for (let i = 0; i < rows.length; i += 1000) {
    const batch = rows.slice(i, i + 1000);
    const values = batch.map(() => `(${columns.map(() => '?').join(', ')})`).join(', ');
    await em.execute(`insert into ${table} (${columns.join(', ')}) values ${values} on conflict do nothing`, batch.flat());
  }
}

/** `replicaOf`, when given, receives each replica's id → the id of the real record it copies. */
export async function seedCatalog(em: EntityManager, total: number, language: string, replicaOf?: Map<string, string>) {
  const records = readCatalog();
  const orgIds = new Map<string, string>();
  for (const r of records) if (!orgIds.has(r.organization)) orgIds.set(r.organization, randomUUID());
  await insertRows(
    em,
    'groups',
    ['id', 'kind', 'name', 'title', 'state', 'created_at', 'updated_at'],
    [...orgIds].map(([title, id]) => [id, 'organization', `${slug(title)}-${id.slice(0, 4)}`, title, 'active', new Date(), new Date()]),
  );

  const tagName = (t: string) => t.trim().slice(0, 100);
  const tagIds = new Map<string, string>();
  for (const r of records) for (const t of r.tags ?? []) if (!tagIds.has(tagName(t))) tagIds.set(tagName(t), randomUUID());
  await insertRows(
    em,
    'tags',
    ['id', 'name', 'created_at'],
    [...tagIds].map(([name, id]) => [id, name, new Date()]),
  );
  const names = new Set<string>();

  const datasets: unknown[][] = [];
  const recordIds: string[] = [];
  const links: unknown[][] = [];
  const resources: unknown[][] = [];
  for (let i = 0; i < total; i++) {
    const r = records[i % records.length];
    const k = Math.floor(i / records.length);
    const id = randomUUID();
    if (k === 0) recordIds[i] = id;
    else replicaOf?.set(id, recordIds[i % records.length]!);
    const title = k === 0 ? r.title : `${r.title} — ${REGIONS[k % REGIONS.length]} ${2000 + (k % 25)}`;
    const when = new Date(Date.now() - i * 60_000);
    let name = k === 0 ? r.name.slice(0, 100) : `${r.name.slice(0, 90)}-${k}`;
    if (names.has(name)) name = `${name.slice(0, 88)}-${i}`;
    names.add(name);
    datasets.push([
      id,
      name,
      false,
      title.slice(0, 1000),
      r.notes ?? null,
      orgIds.get(r.organization),
      r.license_id ?? null,
      false,
      'active',
      false,
      when,
      when,
      when,
    ]);
    for (const t of new Set((r.tags ?? []).map(tagName))) links.push([id, tagIds.get(t)]);
    (r.resources ?? [])
      .slice(0, 5)
      .forEach((res, position) =>
        resources.push([
          randomUUID(),
          id,
          res.name?.slice(0, 1000) ?? null,
          res.url.slice(0, 2000),
          'link',
          res.format?.toUpperCase().slice(0, 100) ?? null,
          position,
          '{}',
          when,
          when,
        ]),
      );
  }
  await insertRows(
    em,
    'datasets',
    [
      'id',
      'name',
      'name_generated',
      'title',
      'notes',
      'owner_org_id',
      'license_id',
      'private',
      'state',
      'deletion_incomplete',
      'created_at',
      'updated_at',
      'published_at',
    ],
    datasets,
  );
  await insertRows(em, 'dataset_tags', ['dataset_id', 'tag_id'], links);
  await insertRows(
    em,
    'resources',
    ['id', 'dataset_id', 'name', 'url', 'url_type', 'format', 'position', 'extras', 'created_at', 'updated_at'],
    resources,
  );
  await em.execute('analyze');
  const documents = await writeAllKeywordDocuments(em, language);
  await writeAllFacetKeys(em);
  return documents;
}
