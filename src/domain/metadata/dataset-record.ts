import { z } from 'zod';
import { spatialCoverage, temporalCoverage } from './coverage.ts';
import {
  accessLevel,
  agent,
  concept,
  contact,
  dateText,
  describedBy,
  duration,
  frequency,
  iri,
  language,
  list,
  LONG,
  otherIdentifier,
  qualifiedAttribution,
  qualifiedRelation,
  relatedResource,
  text,
  webUrl,
} from './values.ts';

const URI_LENGTH = 2_000;

/**
 * The metadata record of a dataset beyond the spec's fields: the properties of DCAT-AP 3 and DCAT-US 1.1,
 * one line each with its key in CKAN's package dict (ckanext-dcat's DCAT-AP scheming names, so a CKAN
 * client of a DCAT portal finds them where it looks). Stored together in `datasets.metadata` (only the
 * keys that are set); REST, MCP, the CKAN API, the web form and harvesting all check a value with the same
 * schema. `url` (the landing page), `version`, the license, tags and the spec's fields stay where they are.
 */
export const DATASET_RECORD = {
  temporal: { schema: temporalCoverage, ckan: 'temporal_coverage', about: 'When the data is about: periods {start, end}, either open' },
  spatial: {
    schema: spatialCoverage,
    ckan: 'spatial_coverage',
    about: 'Where the data is about: places with a name, IRI, GeoJSON geometry or bbox',
  },
  accrualPeriodicity: {
    schema: frequency,
    ckan: 'frequency',
    about: 'How often it changes: EU frequency code or IRI, R/P1Y, or irregular',
  },
  language: { schema: list(language), ckan: 'language', about: 'Languages of the data: BCP 47 tags or IRIs' },
  theme: { schema: list(concept), ckan: 'theme', about: 'Themes: EU data themes (IRIs) or DCAT-US theme strings (labels)' },
  publisher: { schema: agent, ckan: 'publisher', about: 'Who publishes it (not the owning organization), with the organizations above it' },
  contactPoint: { schema: list(contact, 20), ckan: 'contact', about: 'Who to contact about it' },
  creator: { schema: agent, ckan: 'creator', about: 'Who made it' },
  accessLevel: { schema: accessLevel, ckan: 'access_level', about: 'DCAT-US access level of the data (the metadata is public)' },
  accessRights: { schema: concept, ckan: 'access_rights', about: 'DCAT-AP access rights (an IRI of the EU access-right table)' },
  rights: { schema: text(LONG), ckan: 'rights', about: 'A statement of the rights over the data' },
  issued: { schema: dateText, ckan: 'issued', about: 'When the source first published it (not when Almanac did)' },
  modified: { schema: dateText, ckan: 'modified', about: 'When the source last changed it (not Almanac’s updatedAt)' },
  conformsTo: { schema: list(iri), ckan: 'conforms_to', about: 'Standards or schemas the data conforms to' },
  describedBy: { schema: describedBy, ckan: 'described_by', about: 'Its data dictionary' },
  references: { schema: list(webUrl), ckan: 'references', about: 'Related documents (DCAT-US references)' },
  documentation: { schema: list(iri), ckan: 'documentation', about: 'Pages that document it (foaf:page)' },
  identifier: { schema: text(1_000), ckan: 'identifier', about: 'Its identifier at its source (dct:identifier)' },
  otherIdentifiers: { schema: list(otherIdentifier), ckan: 'alternate_identifier', about: 'Other identifiers (adms:identifier)' },
  isPartOf: {
    schema: list(text(URI_LENGTH)),
    ckan: 'is_part_of',
    about: 'Collections and dataset series it belongs to (DCAT-US isPartOf, dcat:inSeries)',
  },
  bureauCode: {
    schema: list(z.string().regex(/^\d{3}:\d{2}$/, 'must be a bureau code such as 015:11')),
    ckan: 'bureau_code',
    about: 'US federal bureau codes (OMB A-11)',
  },
  programCode: {
    schema: list(z.string().regex(/^\d{3}:\d{3}$/, 'must be a program code such as 015:001')),
    ckan: 'program_code',
    about: 'US federal program codes',
  },
  dataQuality: { schema: z.boolean(), ckan: 'data_quality', about: 'Whether it meets the agency’s Information Quality Guidelines' },
  primaryITInvestmentUII: {
    schema: z.string().regex(/^\d{3}-\d{9}$/, 'must be a UII such as 023-000000001'),
    ckan: 'primary_it_investment_uii',
    about: 'US federal IT investment identifier',
  },
  systemOfRecords: { schema: webUrl, ckan: 'system_of_records', about: 'The Privacy Act system of records notice' },
  versionNotes: { schema: text(LONG), ckan: 'version_notes', about: 'What is new in this version (adms:versionNotes)' },
  type: { schema: concept, ckan: 'dcat_type', about: 'Its type (dct:type)' },
  status: { schema: concept, ckan: 'status', about: 'Its lifecycle status (adms:status)' },
  provenance: { schema: list(text(LONG), 20), ckan: 'provenance', about: 'Statements of its provenance' },
  source: { schema: list(iri), ckan: 'source', about: 'Datasets it is derived from' },
  relation: { schema: list(iri), ckan: 'relation', about: 'Related resources' },
  hasVersion: { schema: list(iri), ckan: 'has_version', about: 'Its other versions' },
  isVersionOf: { schema: list(iri), ckan: 'is_version_of', about: 'What it is a version of' },
  isReferencedBy: { schema: list(iri), ckan: 'is_referenced_by', about: 'Publications that cite it' },
  sample: { schema: list(iri), ckan: 'sample', about: 'Sample distributions (adms:sample)' },
  wasGeneratedBy: { schema: list(iri), ckan: 'was_generated_by', about: 'Activities that made it (prov:wasGeneratedBy)' },
  qualifiedRelation: { schema: list(qualifiedRelation), ckan: 'qualified_relation', about: 'Relations with their role' },
  qualifiedAttribution: { schema: list(qualifiedAttribution), ckan: 'qualified_attribution', about: 'Agents with their role' },
  relatedResources: {
    schema: list(relatedResource, 50),
    ckan: 'related_resources',
    about: 'The series, datasets or services it links to (isPartOf, qualifiedRelation), described: class, title, description, publisher',
  },
  applicableLegislation: { schema: list(iri), ckan: 'applicable_legislation', about: 'Legislation that mandates it (ELI IRIs)' },
  temporalResolution: { schema: duration, ckan: 'temporal_resolution', about: 'Its smallest time step (ISO 8601 duration)' },
  spatialResolutionInMeters: {
    schema: z.number().positive().finite(),
    ckan: 'spatial_resolution_in_meters',
    about: 'Its smallest distance step',
  },
} as const satisfies Record<string, RecordField>;

export interface RecordField {
  schema: z.ZodType;
  /** Its key in a CKAN package or resource dict. */
  ckan: string;
  about: string;
}

export type RecordTable = Record<string, RecordField>;
/** A record's values: each key absent or null when unset. */
export type RecordValues<T extends RecordTable> = { -readonly [K in keyof T]?: z.infer<T[K]['schema']> | null };
export type DatasetRecordValues = RecordValues<typeof DATASET_RECORD>;

export const recordKeys = <T extends RecordTable>(table: T) => Object.keys(table) as Array<keyof T & string>;

const isEmpty = (v: unknown) => v === null || v === undefined || (Array.isArray(v) && v.length === 0);

/** Only the keys that are set, in the table's order: what the `metadata` column holds. */
export function storedRecord<T extends RecordTable>(table: T, values: RecordValues<T>): RecordValues<T> {
  return Object.fromEntries(recordKeys(table).flatMap((k) => (isEmpty(values[k]) ? [] : [[k, values[k]]]))) as RecordValues<T>;
}

/** Every key of the table, null (or [] for a list) when unset: what a record presents. */
export function presentedRecord<T extends RecordTable>(table: T, stored: RecordValues<T> | null | undefined) {
  return Object.fromEntries(recordKeys(table).map((k) => [k, stored?.[k] ?? (table[k]!.schema instanceof z.ZodArray ? [] : null)])) as {
    [K in keyof T]: z.infer<T[K]['schema']> | null;
  };
}

/** A write's new record: `input`'s keys replace (null or [] clears), the others stay unless `full`. */
export function mergedRecord<T extends RecordTable>(table: T, current: RecordValues<T>, input: RecordValues<T>, full: boolean) {
  const merged: RecordValues<T> = full ? {} : { ...current };
  for (const k of recordKeys(table)) if (k in input) merged[k] = input[k];
  return storedRecord(table, merged);
}

/** The table as zod shapes: a body's keys (each absent, null or a value) and a record's (each present). */
export const recordInputShape = <T extends RecordTable>(table: T) =>
  Object.fromEntries(Object.entries(table).map(([k, f]) => [k, f.schema.nullish().describe(f.about)])) as {
    [K in keyof T]: z.ZodOptional<z.ZodNullable<T[K]['schema']>>;
  };
export const recordOutputShape = <T extends RecordTable>(table: T) =>
  Object.fromEntries(
    Object.entries(table).map(([k, f]) => [
      k,
      f.schema instanceof z.ZodArray ? f.schema.describe(f.about) : f.schema.nullable().describe(f.about),
    ]),
  ) as { [K in keyof T]: z.ZodNullable<T[K]['schema']> };
