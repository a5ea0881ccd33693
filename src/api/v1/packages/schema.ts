import { z } from 'zod';
import { DATASET_FIELDS } from '../../../domain/datasets/field-table.ts';
import { bboxText, coverageDate } from '../../../domain/datasets/coverage-query.ts';
import { DATASET_LIMITS as L, LINK_PROTOCOLS, tooLong, tooMany } from '../../../domain/datasets/limits.ts';
import { DATASET_RECORD, recordInputShape, recordOutputShape } from '../../../domain/metadata/dataset-record.ts';
import { DISTRIBUTION_RECORD } from '../../../domain/metadata/distribution-record.ts';
import { customFields, extras } from '../../../domain/metadata/extras.ts';
import { RESOURCE_FIELDS } from '../../../domain/resources/field-table.ts';
import { filterValue, flag, listOf, paging, slug } from '../../../http/schemas.ts';
import { fieldInput, inputShape, outputShape, schemaOrgShape } from './field-schemas.ts';

const tag = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(L.tagLength, { error: (issue) => `tag "${String(issue.input)}" is ${tooLong(String(issue.input).length, L.tagLength)}` })
  .refine((t) => !t.includes(','), 'must not contain a comma');

/** An array capped at `max` whose 422 says how many came and the cap: "too big: 6,000 resources (at most 5,000)". */
const capped = <T extends z.ZodType>(item: T, max: number, what: string) =>
  z.array(item).max(max, { error: (issue) => tooMany((issue.input as unknown[]).length, what, max) });

const resourceFields = {
  ...inputShape(RESOURCE_FIELDS),
  ...recordInputShape(DISTRIBUTION_RECORD),
  customExtras: extras.nullish().describe('Free key/value pairs, kept in order (CKAN’s resource extras); `extras` is the system’s'),
  customFields: customFields.nullish().describe('Values of the resource fields the metadata profiles define'),
};

/** A dataset's metadata record beyond the spec's fields (src/domain/metadata/), its extras and its profile fields. */
const metadataInput = {
  ...recordInputShape(DATASET_RECORD),
  extras: extras.nullish().describe('Free key/value pairs, kept byte for byte and in order (CKAN’s extras)'),
  customFields: customFields.nullish().describe('Values of the fields the metadata profiles define'),
};
const metadataOutput = {
  ...recordOutputShape(DATASET_RECORD),
  extras: z.array(z.object({ key: z.string(), value: z.string() })),
  customFields: z.record(z.string(), z.unknown()),
};

/**
 * A link (the default `urlType`) needs its `url`; an upload has none until the service sets it to its
 * download URL once the bytes arrive. `extras` is system-managed: sending it is a 422.
 */
export const ResourceBody = z
  .discriminatedUnion('urlType', [
    z.strictObject({
      ...resourceFields,
      urlType: z.literal('link').default('link'),
      url: z
        .url({
          protocol: LINK_PROTOCOLS,
          error: (issue) => (issue.input == null ? 'is required for a link' : 'must be an http(s) or ftp URL'),
        })
        .max(L.resourceUrl),
    }),
    z.strictObject({
      ...resourceFields,
      urlType: z.literal('upload'),
      url: z.null({ error: 'is set by the service for an upload' }).optional(),
    }),
  ])
  .meta({ id: 'ResourceInput', description: '`extras` is system-managed: sending it is a 422' });

// `ownerOrg` has always come between `notes` and the table's other fields.
const { title, notes, ...laterFields } = inputShape(DATASET_FIELDS);

/** Writable dataset fields. In a draft PUT an absent key is left alone and null clears it. */
export const DatasetFields = z.strictObject({
  name: slug.nullish(),
  title,
  notes,
  ownerOrg: z.string().min(1).max(200).nullish().describe('Organization id or name'),
  ...laterFields,
  ...metadataInput,
  tags: capped(tag, L.tags, 'tags').nullish().describe(`Tag names (at most ${L.tags}); created on first use`),
  groups: capped(z.string().min(1).max(200), L.groups, 'groups').nullish().describe('Category names or ids'),
});

export const CreateDatasetBody = DatasetFields.extend({
  name: slug,
  ownerOrg: z.string().min(1).max(200).describe('Organization id or name'),
  licenseId: fieldInput(DATASET_FIELDS.licenseId),
  resources: capped(ResourceBody, L.resources, 'resources').optional().describe(`At most ${L.resources}`),
});

const GroupRef = z.object({ id: z.uuid(), name: z.string(), title: z.string() });

// Placed as presentResource and presentDataset place them.
const { name: resourceName, description, format, mimetype, ...laterResourceFields } = outputShape(RESOURCE_FIELDS);
const { title: titleOut, notes: notesOut, licenseId, private: isPrivate, ...laterOutputs } = outputShape(DATASET_FIELDS);

export const ResourceRecord = z
  .object({
    id: z.uuid(),
    packageId: z.uuid(),
    name: resourceName,
    description,
    url: z.string().nullable(),
    urlType: z.enum(['upload', 'link']),
    format,
    mimetype,
    ...laterResourceFields,
    ...recordOutputShape(DISTRIBUTION_RECORD),
    customExtras: z.array(z.object({ key: z.string(), value: z.string() })),
    customFields: z.record(z.string(), z.unknown()),
    size: z.number().int().nullable(),
    hash: z.string().nullable(),
    position: z.number().int(),
    extras: z.record(z.string(), z.unknown()),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Resource' });

export const DatasetRecord = z
  .object({
    id: z.uuid(),
    name: z.string(),
    title: titleOut,
    notes: notesOut,
    ownerOrg: z.uuid().nullable(),
    organization: GroupRef.nullable(),
    licenseId,
    private: isPrivate,
    state: z.enum(['draft', 'active', 'deleted']),
    tags: z.array(z.string()),
    groups: z.array(GroupRef),
    ...laterOutputs,
    ...metadataOutput,
    creatorUserId: z.uuid().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    publishedAt: z.iso.datetime().nullable(),
    harvest: z
      .object({
        sourceId: z.uuid(),
        remoteId: z.string(),
        remoteUrl: z.string().nullable(),
        harvestedAt: z.iso.datetime().nullable(),
      })
      .nullable()
      .describe('Where a harvested dataset came from (its harvest source, the record’s id and page there); null for datasets made here'),
    resources: z.array(ResourceRecord).optional().describe('Detail only'),
    deletionIncomplete: z.boolean().optional().describe('Drafts only'),
  })
  .meta({ id: 'Dataset' });

/** `tags[]=a&tags[]=b`, `tags=a&tags=b` and `tags=a` all arrive as a list. */
// As long as the longest tag (DATASET_LIMITS.tagLength).
const name = filterValue(L.tagLength);
const names = z.union([name, z.array(name).max(50)]).transform((v) => (Array.isArray(v) ? v : [v]));

export const ListQuery = z.object({
  q: z.string().trim().max(500).optional().describe('Keywords or natural language; websearch syntax ("phrase", -word, or)'),
  semantic: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
  ...paging,
  organization: names.optional(),
  groups: names.optional(),
  tags: names.optional(),
  res_format: names.optional(),
  license_id: names.optional(),
  creator_user_id: z.uuid().optional(),
  name: z.string().trim().max(100).optional().describe('Draft listing: part of the name'),
  state: z.enum(['active', 'deleted', 'draft']).optional().describe('draft and deleted need a login'),
  my_org: flag.optional(),
  private: flag.optional().describe('Include the private datasets the caller may see'),
  sort_by: z.enum(['updated', 'created', 'name']).optional(),
  sort_order: z.enum(['asc', 'desc']).optional(),
  include_facets: flag.optional(),
  theme: names.optional().describe('A theme’s IRI or label (any of them)'),
  access_level: names.optional().describe('public, restricted public or non-public (any of them)'),
  frequency: names.optional().describe('accrualPeriodicity as stored: R/P1Y, ANNUAL, an EU frequency IRI… (any of them)'),
  language: names.optional().describe('A language tag or IRI as stored (any of them)'),
  publisher: names.optional().describe('The publisher’s name (any of them)'),
  bbox: bboxText.optional(),
  temporal_start: coverageDate.optional().describe('Temporal coverage overlaps the period from this date (open when absent)'),
  temporal_end: coverageDate.optional().describe('… up to the end of this date (open when absent); not before temporal_start'),
});

const Facet = z.array(z.object({ name: z.string(), title: z.string().optional(), count: z.number().int() }));

const Match = z
  .object({
    keyword: z.boolean().describe('Found by keywords: title, name, tags, description, resource names, or the text of a file'),
    snippet: z
      .object({
        text: z.string(),
        // A pair as an array of length 2: zod's tuple came out as OpenAPI 3.0's `items: [..]`, invalid in 3.1.
        highlights: z.array(z.array(z.number().int()).length(2)).describe('[start, end) offsets of the matched words'),
      })
      .optional()
      .describe('A passage of the description where the query words occur'),
    semantic: z
      .array(
        z.object({
          index: z.enum(['packages', 'resources', 'contents']),
          score: z.number(),
          resourceId: z.uuid().optional(),
          text: z.string(),
        }),
      )
      .describe('The semantic retrievers that found it (cosine similarity) with the closest passage'),
  })
  .describe('Why this dataset matched the query (with q only)');

export const DatasetList = listOf(DatasetRecord.extend({ match: Match.optional() })).extend({
  meta: z
    .object({ semantic: z.enum(['on', 'off', 'unavailable']) })
    .optional()
    .describe('With q: whether the semantic half ran (on), was turned off (semantic=false), or could not (no model, index down)'),
  facets: z
    .object({
      organization: Facet,
      groups: Facet,
      tags: Facet,
      res_format: Facet,
      license_id: Facet,
      theme: Facet,
      access_level: Facet,
      frequency: Facet,
      language: Facet,
      publisher: Facet,
    })
    .optional()
    .describe('With include_facets: counts over the whole filtered set'),
});

const SchemaOrgOrganization = z.object({ '@type': z.literal('Organization'), '@id': z.url(), name: z.string() });
const SchemaOrgPerson = z.object({ '@type': z.literal('Person'), name: z.string().optional(), email: z.string().optional() });

/** The record's publisher (src/feeds/schema-org-record.ts), with the organizations above it. */
interface SchemaOrgAgentShape {
  '@type': 'Organization';
  '@id'?: string;
  name?: string;
  url?: string;
  email?: string;
  parentOrganization?: SchemaOrgAgentShape;
}
const SchemaOrgAgent: z.ZodType<SchemaOrgAgentShape> = z.lazy(() =>
  z.object({
    '@type': z.literal('Organization'),
    '@id': z.string().optional(),
    name: z.string().optional(),
    url: z.string().optional(),
    email: z.string().optional(),
    parentOrganization: SchemaOrgAgent.optional(),
  }),
);
const SchemaOrgPlace = z.object({
  '@type': z.literal('Place'),
  '@id': z.string().optional().describe('The place’s IRI (a gazetteer’s)'),
  name: z.string().optional(),
  geo: z
    .union([
      z.object({ '@type': z.literal('GeoShape'), box: z.string().optional(), polygon: z.string().optional() }),
      z.object({ '@type': z.literal('GeoCoordinates'), latitude: z.number(), longitude: z.number() }),
    ])
    .optional()
    .describe('A GeoShape box ("south west north east") or polygon ("lat lon …"), or a point'),
});
const oneOrMany = <T extends z.ZodType>(item: T) => z.union([item, z.array(item)]);

/** GET /packages/{nameOrId} with `Accept: application/ld+json` (src/feeds/schema-org.ts). */
export const SchemaOrgDataset = z
  .object({
    '@context': z.literal('https://schema.org/'),
    '@type': z.literal('Dataset'),
    '@id': z.url().describe('The dataset’s IRI in the DCAT feeds'),
    name: z.string(),
    description: z.string(),
    url: z.string(),
    identifier: z.uuid(),
    keywords: z.array(z.string()).optional().describe('Its tags, then its themes’ labels'),
    license: z.string().optional().describe('The license document’s URL, else its title'),
    ...schemaOrgShape(DATASET_FIELDS),
    temporalCoverage: oneOrMany(z.string()).optional().describe('Its periods as ISO 8601 intervals, `..` for an open end'),
    spatialCoverage: oneOrMany(SchemaOrgPlace).optional(),
    inLanguage: oneOrMany(z.string()).optional().describe('BCP 47 tags (ISO 639-3 codes for the EU language table’s IRIs)'),
    isAccessibleForFree: z.boolean(),
    creator: z.union([SchemaOrgPerson, SchemaOrgOrganization]).optional(),
    publisher: z
      .union([SchemaOrgOrganization, SchemaOrgAgent])
      .optional()
      .describe('The record’s publisher when it names one, else the owning organization'),
    maintainer: SchemaOrgPerson.optional(),
    dateCreated: z.iso.datetime(),
    dateModified: z.iso.datetime(),
    datePublished: z.iso.datetime().optional(),
    distribution: z.array(
      z.object({
        '@type': z.literal('DataDownload'),
        ...schemaOrgShape(RESOURCE_FIELDS),
        contentUrl: z.string(),
        encodingFormat: z.string().optional(),
        contentSize: z.string().optional(),
        sha256: z.string().optional(),
      }),
    ),
  })
  .meta({ id: 'SchemaOrgDataset', description: 'schema.org Dataset in JSON-LD, as Google Dataset Search reads it' });
