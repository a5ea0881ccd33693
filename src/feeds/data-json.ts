import { isDeepStrictEqual } from 'node:util';
import { storedValues } from '../domain/datasets/field-table.ts';
import type { Extra } from '../domain/metadata/extras.ts';
import { RESOURCE_FIELDS } from '../domain/resources/field-table.ts';
import {
  DATASET_KEYS,
  DISTRIBUTION_KEYS,
  extraField,
  readDatasetField,
  readDistributionField,
  type Raw,
} from '../harvest/readers/dcat-us-fields.ts';
import { typedDataset, typedDistribution, type DataJsonResource, type DataJsonSource } from './data-json-dataset.ts';
import type { CatalogSite } from './dcat-graph.ts';
import { datasetIri } from './dcat-document.ts';
import type { FeedDataset } from './public-datasets.ts';

/**
 * DCAT-US 1.1 (Project Open Data's `data.json`), the catalog data.gov harvests: every public dataset in
 * one document, with everything its record holds (data-json-dataset.ts). `identifier` is the source's
 * for a harvested dataset, else the dataset's DCAT IRI (stable and unique, as harvesters key on it).
 *
 * An extra under a DCAT-US field's name is the source's own text of that field, kept by the harvest
 * (src/harvest/readers/dcat-us-record.ts): one the typed record has no place for comes back as the source
 * wrote it, and one whose typed value would come back otherwise (keywords in another order, a license URL
 * spelled another way) comes back as written for as long as it still says what the record says. Once the
 * record is edited, the edit wins.
 */
export const DCAT_US_CATALOG = {
  '@context': 'https://project-open-data.cio.gov/v1.1/schema/catalog.jsonld',
  '@type': 'dcat:Catalog',
  conformsTo: 'https://project-open-data.cio.gov/v1.1/schema',
  describedBy: 'https://project-open-data.cio.gov/v1.1/schema/catalog.json',
} as const;

const isEmpty = (v: unknown) => v === null || v === undefined || (Array.isArray(v) && v.length === 0);

/** Tags compare as a set of lower-case names (the record sorts them); every other value as it is. */
function agrees(partial: Record<string, unknown>, current: object): boolean {
  const held = current as Record<string, unknown>;
  return Object.entries(partial).every(([key, value]) => {
    // Derived from contactPoint on harvest; contactPoint itself is what is compared.
    if (key === 'maintainer' || key === 'maintainerEmail') return true;
    if (key === 'tags') {
      const names = (v: unknown) => [...new Set((v as string[]).map((t) => t.toLowerCase()))].sort();
      return isDeepStrictEqual(names(value), names(held.tags ?? []));
    }
    if (isEmpty(value) && isEmpty(held[key])) return true;
    return isDeepStrictEqual(JSON.parse(JSON.stringify(value)), JSON.parse(JSON.stringify(held[key] ?? null)));
  });
}

/** `typed` with the kept source text of each DCAT-US field that the record leaves empty or still agrees with. */
function withKeptFields(
  typed: Record<string, unknown>,
  extras: Extra[],
  keys: Set<string>,
  read: (key: string, d: Raw) => object | null,
  current: object,
): Record<string, unknown> {
  const out = { ...typed };
  for (const { key, value } of extras) {
    if (!keys.has(key)) continue;
    const kept = extraField(key, value);
    if (out[key] === undefined) {
      out[key] = kept;
      continue;
    }
    const partial = read(key, { ...out, [key]: kept });
    if (partial && agrees(partial as Record<string, unknown>, current)) out[key] = kept;
  }
  return out;
}

/** A distribution's field as the resource would hold it (its format upper-cased), to compare with what it holds. */
function readStoredDistributionField(key: string, d: Raw) {
  const partial = readDistributionField(key, d);
  if (!partial) return null;
  const stored = storedValues(RESOURCE_FIELDS, partial) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(partial).map(([k, v]) => [k, k in stored ? stored[k] : v]));
}

function distribution(resource: DataJsonResource) {
  return withKeptFields(typedDistribution(resource), resource.customExtras, DISTRIBUTION_KEYS, readStoredDistributionField, resource);
}

const hasLink = (d: unknown) => Boolean(d && typeof d === 'object' && ((d as Raw).downloadURL || (d as Raw).accessURL));

/**
 * The distributions: one per resource, in order; distributions the source listed without any link (no
 * resource holds them) are kept as it wrote them, at their places among the others.
 */
function distributions(kept: unknown, resources: DataJsonResource[]) {
  const written = resources.map(distribution);
  if (!Array.isArray(kept)) return written;
  const merged: unknown[] = [];
  for (const entry of kept) {
    if (!hasLink(entry)) merged.push(entry);
    else if (written.length) merged.push(written.shift());
  }
  return [...merged, ...written];
}

export function dataJsonDataset(site: CatalogSite, dataset: FeedDataset) {
  const source = dataset as unknown as DataJsonSource;
  const out = withKeptFields(typedDataset(site, source), source.extras, DATASET_KEYS, readDatasetField, source);
  out.distribution = distributions(out.distribution, source.resources);
  return out;
}

export async function dataJson(site: CatalogSite, datasets: AsyncIterable<FeedDataset>) {
  const entries: Array<{ iri: string; entry: Record<string, unknown> }> = [];
  for await (const dataset of datasets) entries.push({ iri: datasetIri(site, dataset.id), entry: dataJsonDataset(site, dataset) });
  return { ...DCAT_US_CATALOG, dataset: withOwnIdentifiers(site, entries) };
}

/**
 * An identifier is the record's own, written by its editors, so it names one dataset only where no other
 * of the catalog claims it and it is not one of this site's IRIs: harvesters keep one dataset per
 * identifier, so a dataset given another's would push that one out of every catalog downstream. Where
 * it does not, the dataset is identified by its IRI here, which no one else can take.
 */
function withOwnIdentifiers(site: CatalogSite, entries: Array<{ iri: string; entry: Record<string, unknown> }>) {
  const claims = new Map<unknown, number>();
  for (const { entry } of entries) claims.set(entry.identifier, (claims.get(entry.identifier) ?? 0) + 1);
  return entries.map(({ iri, entry }) => {
    const id = entry.identifier;
    const taken = claims.get(id)! > 1 || (typeof id === 'string' && id !== iri && id.startsWith(`${site.publicUrl}/`));
    return taken ? { ...entry, identifier: iri } : entry;
  });
}
