import type { z } from 'zod';
import { DATASET_RECORD, type DatasetRecordValues } from '../../domain/metadata/dataset-record.ts';
import { DISTRIBUTION_RECORD, type DistributionRecordValues } from '../../domain/metadata/distribution-record.ts';
import type { Agent } from '../../domain/metadata/values.ts';
import { licenseIdOf } from '../licenses.ts';
import { cleanTags } from '../tags.ts';
import { email, httpUrl, object, text } from '../values.ts';
import { spatialPlace, temporalPeriod } from './dcat-us-coverage.ts';

/**
 * DCAT-US 1.1 fields read one at a time into the record (the dataset's own fields and its metadata
 * record), each into a partial view of the dataset or resource, checked with the record's schemas. A field
 * that gives null has no typed place as written, and goes to the extras as its source wrote it. The
 * exporter (src/feeds/data-json*.ts) reads an extra the same way, to know whether the source's text still
 * says what the record says before it writes it back.
 */

export type Raw = Record<string, unknown>;

/** The dataset as the feeds present it: its fields and its metadata record, flat. */
export interface DatasetView extends DatasetRecordValues {
  title?: string;
  notes?: string | null;
  tags?: string[];
  licenseId?: string | null;
  url?: string | null;
  maintainer?: string | null;
  maintainerEmail?: string | null;
}

/** A resource as the feeds present it: its fields and its distribution record, flat. */
export interface ResourceView extends DistributionRecordValues {
  name?: string | null;
  description?: string | null;
  format?: string | null;
  mimetype?: string | null;
}

/** A field's value in its typed places, unchecked yet (readField checks it with the record's schemas), or null. */
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- V names the view a reader fills
type FieldReader<V> = (value: unknown, d: Raw) => Record<string, unknown> | null;

const str = (value: unknown) => (typeof value === 'string' ? value : null);
const as =
  <K extends string>(key: K) =>
  (value: unknown) =>
    ({ [key]: value }) as Record<K, unknown>;
const oneOf =
  <K extends string>(key: K) =>
  (value: unknown) =>
    typeof value === 'string' ? ({ [key]: [value] } as Record<K, unknown>) : null;

/** The DCAT-US type names of the organizations and contacts, which the exporter writes on every one. */
export const ORGANIZATION_TYPE = 'org:Organization';
export const CONTACT_TYPE = 'vcard:Contact';

/** A DCAT-US publisher (with the organizations above it) as an agent; null for keys an agent has no place for. */
function agentOf(value: unknown, depth = 1): Agent | null {
  const o = object(value);
  if (!o || depth > 5) return null;
  if (Object.keys(o).some((k) => !['@type', 'name', 'subOrganizationOf'].includes(k))) return null;
  if (o['@type'] !== undefined && o['@type'] !== ORGANIZATION_TYPE) return null;
  if (typeof o.name !== 'string') return null;
  const parent = o.subOrganizationOf === undefined ? undefined : agentOf(o.subOrganizationOf, depth + 1);
  if (parent === null) return null;
  return { name: o.name, ...(parent ? { subOrganizationOf: parent } : {}) };
}

function contactOf(value: unknown) {
  const o = object(value);
  if (!o || Object.keys(o).some((k) => !['@type', 'fn', 'hasEmail'].includes(k))) return null;
  if (o['@type'] !== undefined && o['@type'] !== CONTACT_TYPE) return null;
  const fn = str(o.fn);
  const hasEmail = str(o.hasEmail);
  if ((o.fn !== undefined && fn === null) || (o.hasEmail !== undefined && hasEmail === null)) return null;
  // The exporter writes `mailto:` back: an address written without it is not this field's DCAT-US form.
  if (hasEmail !== null && !/^mailto:/i.test(hasEmail)) return null;
  const address = hasEmail === null ? null : email(hasEmail);
  return {
    contactPoint: [{ name: fn, email: address }],
    maintainer: text(fn),
    maintainerEmail: address,
  };
}

function describedByOf(d: Raw) {
  const url = str(d.describedBy);
  if (url === null || (d.describedByType !== undefined && str(d.describedByType) === null)) return null;
  return { describedBy: { url, type: str(d.describedByType) } };
}

export const DATASET_READERS: Record<string, FieldReader<DatasetView>> = {
  '@type': (v) => (v === 'dcat:Dataset' ? {} : null),
  title: (v) => (text(v) ? { title: text(v)! } : null),
  description: (v) => (typeof v === 'string' ? { notes: text(v) } : null),
  keyword: (v) =>
    typeof v === 'string'
      ? { tags: cleanTags(v.split(',')) }
      : Array.isArray(v) && v.every((k) => typeof k === 'string')
        ? { tags: cleanTags(v) }
        : null,
  license: (v) => (typeof v === 'string' && text(v) ? { licenseId: licenseIdOf(text(v)) } : null),
  landingPage: (v) => (httpUrl(v) ? { url: httpUrl(v) } : null),
  identifier: (v) => (text(v) ? { identifier: text(v) } : null),
  accessLevel: as('accessLevel'),
  rights: as('rights'),
  accrualPeriodicity: as('accrualPeriodicity'),
  bureauCode: as('bureauCode'),
  programCode: as('programCode'),
  dataQuality: as('dataQuality'),
  issued: as('issued'),
  modified: as('modified'),
  language: as('language'),
  references: as('references'),
  primaryITInvestmentUII: as('primaryITInvestmentUII'),
  systemOfRecords: as('systemOfRecords'),
  conformsTo: oneOf('conformsTo'),
  isPartOf: oneOf('isPartOf'),
  theme: (v) => (Array.isArray(v) && v.every((t) => typeof t === 'string') ? { theme: v.map((label) => ({ label })) } : null),
  publisher: (v) => {
    const publisher = agentOf(v);
    return publisher ? { publisher } : null;
  },
  contactPoint: contactOf,
  describedBy: (_v, d) => describedByOf(d),
  describedByType: (_v, d) => describedByOf(d),
  temporal: (v) => {
    const period = temporalPeriod(v);
    return period ? { temporal: [period] } : null;
  },
  spatial: (v) => {
    const place = spatialPlace(v);
    return place ? { spatial: [place] } : null;
  },
};

export const DISTRIBUTION_READERS: Record<string, FieldReader<ResourceView>> = {
  '@type': (v) => (v === 'dcat:Distribution' ? {} : null),
  title: (v) => (typeof v === 'string' ? { name: text(v) } : null),
  description: (v) => (typeof v === 'string' ? { description: text(v) } : null),
  format: (v) => (typeof v === 'string' ? { format: text(v) } : null),
  mediaType: (v) => (typeof v === 'string' ? { mimetype: text(v) } : null),
  accessURL: as('accessUrl'),
  downloadURL: as('downloadUrl'),
  conformsTo: oneOf('conformsTo'),
  describedBy: (_v, d) => describedByOf(d),
  describedByType: (_v, d) => describedByOf(d),
};

/** `key`'s value read into its typed place and checked with the record's schema; null when it has none. */
function readField<V extends object>(
  readers: Record<string, FieldReader<V>>,
  table: Record<string, { schema: z.ZodType }>,
  key: string,
  d: Raw,
): V | null {
  const reader = readers[key];
  const value = d[key];
  if (!reader || value === undefined || value === null) return null;
  const partial = reader(value, d);
  if (!partial) return null;
  const checked: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(partial)) {
    const field = table[k];
    if (!field || v === null) {
      checked[k] = v;
      continue;
    }
    const parsed = field.schema.safeParse(v);
    if (!parsed.success) return null;
    checked[k] = parsed.data;
  }
  return checked as V;
}

export const readDatasetField = (key: string, d: Raw) => readField(DATASET_READERS, DATASET_RECORD, key, d);
export const readDistributionField = (key: string, d: Raw) => readField(DISTRIBUTION_READERS, DISTRIBUTION_RECORD, key, d);

/**
 * The DCAT-US fields whose value is text: an extra under one of these keys is written back as is; under
 * the others (lists, objects, booleans) it is the JSON its source's value was kept as.
 */
const TEXT_FIELDS = new Set([
  'accessLevel',
  'rights',
  'accrualPeriodicity',
  'describedBy',
  'describedByType',
  'conformsTo',
  'description',
  'identifier',
  'issued',
  'landingPage',
  'license',
  'modified',
  'primaryITInvestmentUII',
  'spatial',
  'systemOfRecords',
  'temporal',
  'isPartOf',
  'title',
  'format',
  'mediaType',
  'accessURL',
  'downloadURL',
  '@type',
]);

/** A source's value as an extra keeps it: text as is, anything else as its JSON. */
/** An extra's text as the DCAT-US value it was kept from. */
export function extraField(key: string, value: string): unknown {
  if (TEXT_FIELDS.has(key)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

export const DATASET_KEYS = new Set([...Object.keys(DATASET_READERS), 'distribution']);
export const DISTRIBUTION_KEYS = new Set(Object.keys(DISTRIBUTION_READERS));
