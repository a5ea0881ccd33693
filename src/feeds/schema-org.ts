import { DATASET_FIELDS, type DatasetFieldValues } from '../domain/datasets/field-table.ts';
import { licenseFor } from '../domain/licenses.ts';
import { RESOURCE_FIELDS, type ResourceFieldValues } from '../domain/resources/field-table.ts';
import { datasetIri, type CatalogSite } from './dcat-graph.ts';
import { plainFields } from './field-mappings.ts';
import { schemaOrgAgent, schemaOrgCoverage, schemaOrgKeywords, type SchemaOrgRecord } from './schema-org-record.ts';
import { fileTypeOf } from './file-types.ts';
import type { FeedDataset, ResourceRecord } from './public-datasets.ts';

/** A dataset record with its resources, as GET /packages/{nameOrId} presents it. */
export type SchemaOrgInput = Pick<FeedDataset, 'id' | 'name' | 'organization' | 'tags' | 'createdAt' | 'updatedAt' | 'publishedAt'> &
  DatasetFieldValues &
  SchemaOrgRecord & { resources: Array<Pick<ResourceRecord, 'url' | 'size' | 'hash'> & ResourceFieldValues> };

/**
 * schema.org `Dataset` in JSON-LD, as Google Dataset Search reads it: what GET /api/v1/packages/{nameOrId}
 * answers to `Accept: application/ld+json`, and the block a dataset's web page embeds in
 * `<script type="application/ld+json">` (see `schemaOrgScript`).
 */
export function schemaOrgDataset(site: CatalogSite, dataset: SchemaOrgInput) {
  const title = dataset.title?.trim() || dataset.name;
  const license = licenseFor(dataset.licenseId);
  const organization = dataset.organization
    ? { '@type': 'Organization', '@id': `${site.publicUrl}/organization/${dataset.organization.id}`, name: dataset.organization.title }
    : undefined;
  const creator = dataset.author
    ? { '@type': 'Person', name: dataset.author, ...(dataset.authorEmail ? { email: dataset.authorEmail } : {}) }
    : organization;
  const contact = dataset.maintainer || dataset.maintainerEmail;
  // The record's publisher when it names one (a harvested agency, distinct from the owning organization).
  const publisher = dataset.publisher ? schemaOrgAgent(dataset.publisher, '') : organization;
  const keywords = schemaOrgKeywords(dataset.tags, dataset);
  return {
    '@context': 'https://schema.org/',
    '@type': 'Dataset',
    '@id': datasetIri(site, dataset.id),
    name: title,
    // Google asks for a description of 50 characters or more; a dataset without notes gives its title.
    description: dataset.notes?.trim() || title,
    url: dataset.url ?? `${site.publicUrl}/api/v1/packages/${dataset.name}`,
    identifier: dataset.id,
    ...(keywords.length ? { keywords } : {}),
    ...(license ? { license: license.url ?? license.title } : {}),
    ...plainFields(DATASET_FIELDS, dataset, 'schemaOrg'),
    ...schemaOrgCoverage(dataset, ''),
    isAccessibleForFree: true,
    ...(creator ? { creator } : {}),
    ...(publisher ? { publisher } : {}),
    ...(contact
      ? {
          maintainer: {
            '@type': 'Person',
            ...(dataset.maintainer ? { name: dataset.maintainer } : {}),
            ...(dataset.maintainerEmail ? { email: dataset.maintainerEmail } : {}),
          },
        }
      : {}),
    dateCreated: dataset.createdAt,
    dateModified: dataset.updatedAt,
    ...(dataset.publishedAt ? { datePublished: dataset.publishedAt } : {}),
    distribution: dataset.resources
      .filter((r) => r.url)
      .map((r) => {
        const type = fileTypeOf(r);
        return {
          '@type': 'DataDownload',
          ...plainFields(RESOURCE_FIELDS, r, 'schemaOrg'),
          contentUrl: r.url!,
          ...((type.mediaType ?? type.format) ? { encodingFormat: type.mediaType ?? type.format } : {}),
          ...(r.size !== null ? { contentSize: `${r.size} B` } : {}),
          ...(r.hash ? { sha256: r.hash } : {}),
        };
      }),
  };
}

/**
 * The text of a web page's `<script type="application/ld+json">` element: the JSON with `<` escaped, so
 * no text in a dataset (`</script>` in its notes) can end the element early.
 */
export const schemaOrgScriptText = (site: CatalogSite, dataset: SchemaOrgInput) =>
  JSON.stringify(schemaOrgDataset(site, dataset)).replace(/</g, '\\u003c');

export const schemaOrgScript = (site: CatalogSite, dataset: SchemaOrgInput) =>
  `<script type="application/ld+json">${schemaOrgScriptText(site, dataset)}</script>`;
