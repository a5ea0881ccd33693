import { DATASET_FIELDS } from '../domain/datasets/field-table.ts';
import { licenseFor } from '../domain/licenses.ts';
import { RESOURCE_FIELDS } from '../domain/resources/field-table.ts';
import { datasetIri, type CatalogSite } from './dcat-graph.ts';
import { plainFields } from './field-mappings.ts';
import { fileTypeOf } from './file-types.ts';
import type { FeedDataset, ResourceRecord } from './public-datasets.ts';

/**
 * DCAT-US 1.1 (Project Open Data's `data.json`), the catalog data.gov harvests: every public dataset in
 * one document. `identifier` is the dataset's DCAT IRI (stable and unique, as harvesters key on it);
 * federal-only fields (`bureauCode`, `programCode`) are left out.
 */
export const DCAT_US_CATALOG = {
  '@context': 'https://project-open-data.cio.gov/v1.1/schema/catalog.jsonld',
  '@type': 'dcat:Catalog',
  conformsTo: 'https://project-open-data.cio.gov/v1.1/schema',
  describedBy: 'https://project-open-data.cio.gov/v1.1/schema/catalog.json',
} as const;

function distribution(resource: ResourceRecord) {
  const type = fileTypeOf(resource);
  const url = resource.url;
  return {
    '@type': 'dcat:Distribution',
    ...plainFields(RESOURCE_FIELDS, resource, 'dataJson'),
    // A file we hold is a download (which DCAT-US pairs with its mediaType); a link may be a page or an API.
    ...(url && resource.urlType === 'upload' && type.mediaType ? { downloadURL: url, mediaType: type.mediaType } : {}),
    ...(url && !(resource.urlType === 'upload' && type.mediaType) ? { accessURL: url } : {}),
    ...(type.mediaType && !(resource.urlType === 'upload' && url) ? { mediaType: type.mediaType } : {}),
    ...(type.format ? { format: type.format } : {}),
  };
}

export function dataJsonDataset(site: CatalogSite, dataset: FeedDataset) {
  const title = dataset.title?.trim() || dataset.name;
  const publisher = dataset.organization?.title || dataset.organization?.name || site.siteName;
  const contactName = dataset.maintainer ?? dataset.author ?? publisher;
  const contactEmail = dataset.maintainerEmail ?? dataset.authorEmail;
  const license = licenseFor(dataset.licenseId);
  return {
    '@type': 'dcat:Dataset',
    title,
    description: dataset.notes?.trim() || title,
    // DCAT-US requires at least one keyword: a dataset without tags is filed under its publisher.
    keyword: dataset.tags.length ? dataset.tags : [publisher],
    modified: dataset.updatedAt,
    issued: dataset.publishedAt ?? dataset.createdAt,
    publisher: { '@type': 'org:Organization', name: publisher },
    contactPoint: {
      '@type': 'vcard:Contact',
      fn: contactName,
      ...(contactEmail ? { hasEmail: `mailto:${contactEmail}` } : {}),
    },
    identifier: datasetIri(site, dataset.id),
    accessLevel: 'public',
    ...(license?.url ? { license: license.url } : {}),
    ...plainFields(DATASET_FIELDS, dataset, 'dataJson'),
    distribution: dataset.resources.map(distribution),
  };
}

export async function dataJson(site: CatalogSite, datasets: AsyncIterable<FeedDataset>) {
  const entries = [];
  for await (const dataset of datasets) entries.push(dataJsonDataset(site, dataset));
  return { ...DCAT_US_CATALOG, dataset: entries };
}
