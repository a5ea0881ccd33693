import { DATASET_FIELDS } from '../domain/datasets/field-table.ts';
import { licenseFor } from '../domain/licenses.ts';
import type { Agent } from '../domain/metadata/values.ts';
import type { Extra } from '../domain/metadata/extras.ts';
import { RESOURCE_FIELDS } from '../domain/resources/field-table.ts';
import { spatialText, temporalText } from '../harvest/readers/dcat-us-coverage.ts';
import { CONTACT_TYPE, ORGANIZATION_TYPE, type DatasetView, type ResourceView } from '../harvest/readers/dcat-us-fields.ts';
import { datasetIri, type CatalogSite } from './dcat-graph.ts';
import { plainFields } from './field-mappings.ts';
import { fileTypeOf } from './file-types.ts';

/**
 * A dataset as DCAT-US 1.1 from what its record holds (the typed values only; data-json.ts adds what the
 * extras kept of the source). A record without a publisher, contact, dates or identifier of its own gets
 * the site's: the organization, the maintainer, Almanac's dates, the dataset's DCAT IRI.
 */

export interface DataJsonResource extends ResourceView {
  url: string | null;
  urlType: string;
  customExtras: Extra[];
}

export interface DataJsonSource extends DatasetView {
  id: string;
  name: string;
  title: string;
  tags: string[];
  author?: string | null;
  authorEmail?: string | null;
  organization: { name: string; title: string } | null;
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
  extras: Extra[];
  resources: DataJsonResource[];
}

const when = <T>(value: T | null | undefined, write: (v: T) => Record<string, unknown>) =>
  value === null || value === undefined || (Array.isArray(value) && value.length === 0) ? {} : write(value);

function organization(agent: Agent): Record<string, unknown> {
  return {
    '@type': ORGANIZATION_TYPE,
    name: agent.name ?? agent.uri,
    ...when(agent.subOrganizationOf, (parent) => ({ subOrganizationOf: organization(parent) })),
  };
}

export function typedDistribution(resource: DataJsonResource): Record<string, unknown> {
  const own = {
    ...when(resource.conformsTo?.[0], (conformsTo) => ({ conformsTo })),
    ...when(resource.describedBy, (d) => ({ describedBy: d.url, ...when(d.type, (describedByType) => ({ describedByType })) })),
  };
  if (resource.accessUrl || resource.downloadUrl) {
    // The source's two links, each where it was, with the format and media type as it named them.
    return {
      '@type': 'dcat:Distribution',
      ...plainFields(RESOURCE_FIELDS, resource, 'dataJson'),
      ...when(resource.downloadUrl, (downloadURL) => ({ downloadURL })),
      ...when(resource.accessUrl, (accessURL) => ({ accessURL })),
      ...when(resource.mimetype, (mediaType) => ({ mediaType })),
      ...when(resource.format, (format) => ({ format })),
      ...own,
    };
  }
  const type = fileTypeOf({ format: resource.format ?? null, mimetype: resource.mimetype ?? null });
  const url = resource.url;
  const download = Boolean(url && resource.urlType === 'upload' && type.mediaType);
  return {
    '@type': 'dcat:Distribution',
    ...plainFields(RESOURCE_FIELDS, resource, 'dataJson'),
    // A file we hold is a download (which DCAT-US pairs with its mediaType); a link may be a page or an API.
    ...(download ? { downloadURL: url, mediaType: type.mediaType } : {}),
    ...(url && !download ? { accessURL: url } : {}),
    ...(type.mediaType && !download ? { mediaType: type.mediaType } : {}),
    ...(type.format ? { format: type.format } : {}),
    ...own,
  };
}

export function typedDataset(site: CatalogSite, dataset: DataJsonSource): Record<string, unknown> {
  const title = dataset.title?.trim() || dataset.name;
  const publisher = dataset.organization?.title || dataset.organization?.name || site.siteName;
  const contact = dataset.contactPoint?.[0];
  const contactName = contact?.name ?? dataset.maintainer ?? dataset.author ?? publisher;
  const contactEmail = contact ? contact.email : (dataset.maintainerEmail ?? dataset.authorEmail);
  const license = licenseFor(dataset.licenseId);
  return {
    '@type': 'dcat:Dataset',
    title,
    description: dataset.notes?.trim() || title,
    // DCAT-US requires at least one keyword: a dataset without tags is filed under its publisher.
    keyword: dataset.tags.length ? dataset.tags : [publisher],
    modified: dataset.modified ?? dataset.updatedAt,
    issued: dataset.issued ?? dataset.publishedAt ?? dataset.createdAt,
    publisher: dataset.publisher ? organization(dataset.publisher) : { '@type': ORGANIZATION_TYPE, name: publisher },
    contactPoint: {
      '@type': CONTACT_TYPE,
      fn: contactName,
      ...(contactEmail ? { hasEmail: `mailto:${contactEmail}` } : {}),
    },
    identifier: dataset.identifier ?? datasetIri(site, dataset.id),
    accessLevel: dataset.accessLevel ?? 'public',
    ...(license?.url ? { license: license.url } : {}),
    ...plainFields(DATASET_FIELDS, dataset, 'dataJson'),
    ...when(dataset.bureauCode, (bureauCode) => ({ bureauCode })),
    ...when(dataset.programCode, (programCode) => ({ programCode })),
    ...when(dataset.rights, (rights) => ({ rights })),
    ...when(dataset.accrualPeriodicity, (accrualPeriodicity) => ({ accrualPeriodicity })),
    ...when(temporalText(dataset.temporal?.[0]), (temporal) => ({ temporal })),
    ...when(spatialText(dataset.spatial?.[0]), (spatial) => ({ spatial })),
    ...when(dataset.language, (language) => ({ language })),
    ...when(dataset.theme, (themes) => ({ theme: themes.map((t) => t.label ?? t.uri) })),
    ...when(dataset.conformsTo?.[0], (conformsTo) => ({ conformsTo })),
    ...when(dataset.describedBy, (d) => ({ describedBy: d.url, ...when(d.type, (describedByType) => ({ describedByType })) })),
    ...when(dataset.references, (references) => ({ references })),
    ...when(dataset.isPartOf?.[0], (isPartOf) => ({ isPartOf })),
    ...when(dataset.dataQuality, (dataQuality) => ({ dataQuality })),
    ...when(dataset.primaryITInvestmentUII, (primaryITInvestmentUII) => ({ primaryITInvestmentUII })),
    ...when(dataset.systemOfRecords, (systemOfRecords) => ({ systemOfRecords })),
  };
}
