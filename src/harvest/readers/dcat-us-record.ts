import { isDeepStrictEqual } from 'node:util';
import { storedValues } from '../../domain/datasets/field-table.ts';
import type { HarvestRecord, HarvestResource } from '../../domain/harvest/record.ts';
import { RESOURCE_FIELDS } from '../../domain/resources/field-table.ts';
import { DATASET_RECORD, recordKeys } from '../../domain/metadata/dataset-record.ts';
import { DISTRIBUTION_RECORD } from '../../domain/metadata/distribution-record.ts';
import { extraText, type Extra } from '../../domain/metadata/extras.ts';
import { typedDataset, typedDistribution, type DataJsonResource, type DataJsonSource } from '../../feeds/data-json-dataset.ts';
import { slugFrom } from '../../domain/harvest/names.ts';
import { licenseIdOf } from '../licenses.ts';
import { httpUrl, isoInstant, list, object, text } from '../values.ts';
import { readDatasetField, readDistributionField, type DatasetView, type Raw, type ResourceView } from './dcat-us-fields.ts';

/**
 * One DCAT-US dataset as a harvest record, losing nothing: each field goes to its typed place when it has
 * one (dcat-us-fields.ts); a field with none, and a field whose typed value the exporter would write back
 * differently (a keyword list in another order, a license URL spelled another way, an email in another
 * case), is also kept as the source wrote it in the extras under its own name. /data.json writes such an
 * extra back for as long as it still says what the record says (src/feeds/data-json.ts).
 */

/** Only the fallbacks of the exporter read the site, and the fields the source had never use them. */
const NO_SITE = { publicUrl: 'https://localhost', siteName: '' };
const EPOCH = new Date(0).toISOString();

/** What a typed field reads back as, next to the source's value: equal but for the `@type`s the exporter adds. */
function writtenAsSource(written: unknown, source: unknown): boolean {
  const strip = (w: unknown, s: unknown): unknown => {
    const wo = object(w);
    const so = object(s);
    if (!wo || !so) return w;
    return Object.fromEntries(Object.entries(wo).flatMap(([k, v]) => (k === '@type' && !('@type' in so) ? [] : [[k, strip(v, so[k])]])));
  };
  return isDeepStrictEqual(strip(written, source), source);
}

/** Fields read into `view`; the others, and those the exporter would not write back the same, as extras. */
function readObject<V extends object>(
  d: Raw,
  read: (key: string, d: Raw) => V | null,
  skip: string[],
): { view: V; typedKeys: string[]; extras: Extra[] } {
  const view = {} as V;
  const typedKeys: string[] = [];
  const extras: Extra[] = [];
  for (const [key, value] of Object.entries(d)) {
    if (skip.includes(key) || value === null || value === undefined) continue;
    const partial = read(key, d);
    if (partial) {
      Object.assign(view, partial);
      typedKeys.push(key);
    } else extras.push({ key, value: extraText(value) });
  }
  return { view, typedKeys, extras };
}

function keepUnlikeWritten(d: Raw, written: Record<string, unknown>, typedKeys: string[], extras: Extra[]) {
  for (const key of typedKeys) if (!writtenAsSource(written[key], d[key])) extras.push({ key, value: extraText(d[key]) });
}

/** The tags as the dataset presents them once written (split at commas, trimmed, each once, sorted). */
const presentedTags = (tags: string[] = []) =>
  [
    ...new Set(
      tags
        .flatMap((t) => t.split(','))
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  ].sort();

const pick = <K extends string>(view: object, keys: readonly K[]) =>
  Object.fromEntries(
    keys.flatMap((k) => ((view as Record<string, unknown>)[k] !== undefined ? [[k, (view as Record<string, unknown>)[k]]] : [])),
  );

function distributionOf(value: unknown): HarvestResource | null {
  const dist = object(value);
  // The one Almanac fetches: the file when there is one, else the page or API that gives access.
  const url = text(dist?.downloadURL) ?? text(dist?.accessURL);
  if (!dist || !url) return null;
  const { view, typedKeys, extras } = readObject<ResourceView>(dist, readDistributionField, []);
  // As the resource will hold them (its format upper-cased), so a format written otherwise is kept as written.
  const resource: DataJsonResource = { ...view, ...storedValues(RESOURCE_FIELDS, view), url, urlType: 'link', customExtras: [] };
  keepUnlikeWritten(dist, typedDistribution(resource), typedKeys, extras);
  return {
    url,
    name: view.name ?? null,
    description: view.description ?? null,
    format: view.format ?? null,
    mimetype: view.mimetype ?? null,
    size: null,
    metadata: pick(view, recordKeys(DISTRIBUTION_RECORD)),
    customExtras: extras,
  };
}

/** A dataset that has its identifier and title (checked by the caller) as a harvest record. */
export function dcatUsRecord(d: Raw, identifier: string, title: string): HarvestRecord {
  const { view, typedKeys, extras } = readObject<DatasetView>(d, readDatasetField, ['distribution']);
  const distributions = list(d.distribution);
  const resources = distributions.flatMap((value) => {
    const resource = distributionOf(value);
    return resource ? [resource] : [];
  });
  // A distribution with no link has nowhere to go as a resource: the list as the source wrote it is kept.
  if (resources.length !== distributions.length || (d.distribution !== undefined && !Array.isArray(d.distribution))) {
    extras.push({ key: 'distribution', value: extraText(d.distribution) });
  }
  const written = typedDataset(NO_SITE, {
    ...view,
    id: '',
    name: '',
    title: view.title ?? title,
    tags: presentedTags(view.tags),
    organization: null,
    createdAt: EPOCH,
    updatedAt: EPOCH,
    publishedAt: null,
    extras: [],
    resources: [],
  } satisfies DataJsonSource);
  keepUnlikeWritten(d, written, typedKeys, extras);
  const publisher = view.publisher?.name;
  const landingPage = httpUrl(d.landingPage);
  return {
    remoteId: identifier,
    remoteUrl: httpUrl(identifier) ?? landingPage,
    name: null,
    title,
    notes: view.notes ?? null,
    tags: view.tags ?? [],
    licenseId: view.licenseId ?? licenseIdOf(null),
    // Informational: a DCAT-US source's datasets go to the source's organization.
    organization: publisher ? { name: slugFrom(publisher) || publisher, title: publisher, description: null } : null,
    groups: [],
    // The access level describes the data; the metadata is public, as the agency published it (data.gov does the same).
    private: false,
    author: null,
    authorEmail: null,
    maintainer: view.maintainer ?? null,
    maintainerEmail: view.maintainerEmail ?? null,
    version: null,
    url: landingPage,
    modified: isoInstant(d.modified),
    metadata: pick(view, recordKeys(DATASET_RECORD)),
    extras,
    resources,
  };
}
