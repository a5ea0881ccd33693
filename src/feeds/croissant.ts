import { DATASET_FIELDS } from '../domain/datasets/field-table.ts';
import { licenseFor } from '../domain/licenses.ts';
import type { PreviewRecord } from '../domain/pipeline/preview-record.ts';
import { RESOURCE_FIELDS } from '../domain/resources/field-table.ts';
import type { ColumnType } from '../tabular/column-schema.ts';
import { datasetIri, type CatalogSite } from './dcat-graph.ts';
import { plainFields } from './field-mappings.ts';
import { schemaOrgAgent, schemaOrgCoverage, schemaOrgKeywords } from './schema-org-record.ts';
import { fileTypeOf } from './file-types.ts';
import type { FeedDataset, ResourceRecord } from './public-datasets.ts';

/** Croissant 1.0's recommended JSON-LD context (the spec's appendix, as mlcroissant writes it). */
export const CROISSANT_CONTEXT = {
  '@language': 'en',
  '@vocab': 'https://schema.org/',
  citeAs: 'cr:citeAs',
  column: 'cr:column',
  conformsTo: 'dct:conformsTo',
  cr: 'http://mlcommons.org/croissant/',
  rai: 'http://mlcommons.org/croissant/RAI/',
  data: { '@id': 'cr:data', '@type': '@json' },
  dataType: { '@id': 'cr:dataType', '@type': '@vocab' },
  dct: 'http://purl.org/dc/terms/',
  examples: { '@id': 'cr:examples', '@type': '@json' },
  extract: 'cr:extract',
  field: 'cr:field',
  fileProperty: 'cr:fileProperty',
  fileObject: 'cr:fileObject',
  fileSet: 'cr:fileSet',
  format: 'cr:format',
  includes: 'cr:includes',
  isLiveDataset: 'cr:isLiveDataset',
  jsonPath: 'cr:jsonPath',
  key: 'cr:key',
  md5: 'cr:md5',
  parentField: 'cr:parentField',
  path: 'cr:path',
  recordSet: 'cr:recordSet',
  references: 'cr:references',
  regex: 'cr:regex',
  repeated: 'cr:repeated',
  replace: 'cr:replace',
  sc: 'https://schema.org/',
  separator: 'cr:separator',
  source: 'cr:source',
  subField: 'cr:subField',
  transform: 'cr:transform',
} as const;

export const CROISSANT_1_0 = 'http://mlcommons.org/croissant/1.0';

/** Our four column types (src/tabular/column-schema.ts) as Croissant data types. */
const DATA_TYPES: Record<ColumnType, string> = {
  integer: 'sc:Integer',
  float: 'sc:Float',
  boolean: 'sc:Boolean',
  string: 'sc:Text',
};

/** The column schema the pipeline wrote for a queryable resource, or null. */
function columnsOf(resource: ResourceRecord) {
  const extras = resource.extras as { queryable?: boolean; preview?: PreviewRecord | null } | null;
  if (!extras?.queryable) return null;
  return extras.preview?.schema?.columns ?? null;
}

/**
 * Croissant 1.0 needs each file's checksum unless the dataset is live: a FileObject per resource whose
 * sha256 we hold (every upload once its bytes arrived). A link we never read has none and is left out
 * here; it stays in the DCAT feeds.
 */
const described = (r: ResourceRecord) => Boolean(r.url && r.hash && /^[0-9a-f]{64}$/i.test(r.hash));

const fileObjectId = (r: ResourceRecord) => `file-${r.id}`;
const recordSetId = (r: ResourceRecord) => `records-${r.id}`;

/**
 * Croissant's `version` (its "Dataset Versioning" section: schema.org's, MAJOR.MINOR.PATCH recommended,
 * MAJOR when existing data changed). The publisher's own version when the record has one. Else, when
 * the dataset is one file with data versions, that file's version as the MAJOR: each version is new
 * bytes, and Almanac cannot tell rows appended (MINOR) from rows edited (MAJOR), so it claims the larger
 * change. Several files have no such single number (one removed would make it go back), so none is made up.
 */
function datasetVersion(dataset: FeedDataset, files: ResourceRecord[]) {
  if (dataset.version?.trim()) return {};
  const current = files.length === 1 ? files[0]!.versions.current : null;
  return current ? { version: `${current.n}.0.0` } : {};
}

/** GET /dataset/{nameOrId}/croissant.jsonld: the dataset, its files and a RecordSet per queryable file. */
export function croissantDataset(site: CatalogSite, dataset: FeedDataset) {
  const title = dataset.title?.trim() || dataset.name;
  const license = licenseFor(dataset.licenseId);
  const files = dataset.resources.filter(described);
  const organization = dataset.organization ? { '@type': 'sc:Organization', name: dataset.organization.title } : undefined;
  const creator = dataset.author ? { '@type': 'sc:Person', name: dataset.author } : organization;
  // The record's publisher when it names one, else the owning organization.
  const publisher = dataset.publisher ? schemaOrgAgent(dataset.publisher, 'sc:') : organization;
  const keywords = schemaOrgKeywords(dataset.tags, dataset);
  return {
    '@context': CROISSANT_CONTEXT,
    '@type': 'sc:Dataset',
    '@id': datasetIri(site, dataset.id),
    conformsTo: CROISSANT_1_0,
    name: title,
    description: dataset.notes?.trim() || title,
    url: `${site.publicUrl}/api/v1/packages/${dataset.name}`,
    ...(license ? { license: license.url ?? license.title } : {}),
    ...(creator ? { creator } : {}),
    ...(publisher ? { publisher } : {}),
    citeAs: `${dataset.author ?? dataset.organization?.title ?? site.siteName}. ${title}. ${site.siteName}, ${datasetIri(site, dataset.id)}`,
    datePublished: dataset.publishedAt ?? dataset.createdAt,
    dateModified: dataset.updatedAt,
    ...plainFields(DATASET_FIELDS, dataset, 'schemaOrg'),
    ...datasetVersion(dataset, files),
    ...schemaOrgCoverage(dataset, 'sc:'),
    ...(keywords.length ? { keywords } : {}),
    distribution: files.map((r) => {
      const type = fileTypeOf(r);
      return {
        '@type': 'cr:FileObject',
        '@id': fileObjectId(r),
        name: r.name ?? r.id,
        // A set name is the same again, in the place above.
        ...plainFields(RESOURCE_FIELDS, r, 'schemaOrg'),
        contentUrl: r.url,
        encodingFormat: type.mediaType ?? 'application/octet-stream',
        ...(r.size !== null ? { contentSize: `${r.size} B` } : {}),
        sha256: r.hash!.toLowerCase(),
        // A FileObject is a schema.org CreativeWork, which has a version: the data version this file is.
        ...(r.versions.current ? { version: String(r.versions.current.n) } : {}),
      };
    }),
    recordSet: files.flatMap((r) => {
      const columns = columnsOf(r);
      if (!columns) return [];
      return [
        {
          '@type': 'cr:RecordSet',
          '@id': recordSetId(r),
          name: r.name ?? r.id,
          field: columns.map((column) => ({
            '@type': 'cr:Field',
            '@id': `${recordSetId(r)}/${encodeURIComponent(column.name)}`,
            name: column.name,
            dataType: DATA_TYPES[column.type] ?? 'sc:Text',
            source: { fileObject: { '@id': fileObjectId(r) }, extract: { column: column.name } },
          })),
        },
      ];
    }),
  };
}
