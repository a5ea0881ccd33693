import type { DatasetFieldValues } from '../datasets/field-table.ts';
import type { DatasetRecordValues } from '../metadata/dataset-record.ts';
import type { DistributionRecordValues } from '../metadata/distribution-record.ts';
import type { Extra } from '../metadata/extras.ts';
import type { ResourceFieldValues } from '../resources/field-table.ts';

/**
 * What every source reader (src/harvest/readers/) yields and what the domain applies
 * (src/domain/harvest/): a remote catalog's dataset mapped to Almanac's fields, the same shape from
 * CKAN, DCAT-US and DCAT-AP. Plain JSON, so it can cross a Temporal activity boundary.
 */
/**
 * The dataset's fields of the table (src/domain/datasets/field-table.ts) as the source gives them: a
 * field the reader does not read is left out, and the domain takes it as unset. `licenseId` is an id of
 * src/domain/licenses.ts when the source's license is recognised, else the source's own id or URL;
 * `private` is set for CKAN private datasets, which stay within the organization
 * (DCAT-US records are public metadata whatever their `accessLevel`, which the record keeps).
 */
type HarvestedFields = Partial<DatasetFieldValues> & { title: string };

export interface HarvestRecord extends HarvestedFields {
  /** The record's id at the source: a CKAN package id, a DCAT-US `identifier`, a DCAT-AP dataset IRI. */
  remoteId: string;
  /** The record's own page or document at the source, when it has one. */
  remoteUrl: string | null;
  /** The name the source uses (a CKAN name), else null: the domain derives one from the title. */
  name: string | null;
  tags: string[];
  /** The organization at the source (mirrored by name for CKAN sources; ignored for the others). */
  organization: { name: string; title: string; description: string | null } | null;
  /** Categories (CKAN groups), mirrored by name. */
  groups: Array<{ name: string; title: string }>;
  /** When the source last changed it (ISO 8601), if it says. */
  modified: string | null;
  /**
   * The metadata record (src/domain/metadata/dataset-record.ts) as the source gives it: the domain checks
   * each value and moves one that does not fit to `extras` under its key, so nothing is dropped.
   */
  metadata?: DatasetRecordValues;
  /** What has no typed place: CKAN extras as they come, other sources' fields under their own names. */
  extras?: Extra[];
  /** Profile fields (a scheming CKAN's own fields), as the source gives them. */
  customFields?: Record<string, unknown>;
  resources: HarvestResource[];
}

/** A resource's fields of its table (src/domain/resources/field-table.ts), left out when the reader does not read them. */
export type HarvestResource = {
  url: string;
  size: number | null;
  metadata?: DistributionRecordValues;
  customExtras?: Extra[];
} & Partial<ResourceFieldValues>;

/**
 * One record of a page: mapped, or refused with its reason (a record never stops a run). `withdrawn`:
 * refused because the source says it is not public (DCAT-AP `NON_PUBLIC`; DCAT-US
 * `accessLevel: non-public` is imported, as data.gov does), so a dataset harvested from it before is taken out of public view (src/domain/harvest).
 */
export type HarvestItem =
  { kind: 'record'; record: HarvestRecord } | { kind: 'refused'; remoteId: string; title: string | null; reason: string; withdrawn?: true };

/** Where a reader is in its source; plain JSON, carried from page to page (and across continue-as-new). */
export type HarvestCursor = Record<string, string | number | null>;

export interface HarvestPage {
  items: HarvestItem[];
  /** The next page's cursor, or null after the last page. */
  next: HarvestCursor | null;
}

export interface ReadPageOptions {
  /** Incremental runs ask only for records modified since then, where the source can say (CKAN). */
  since: Date | null;
  /** The fetch deadline per request. */
  timeoutMs: number;
}

/** Reads a source a page at a time; `cursor` null is the first page. */
export interface SourceReader {
  readPage(cursor: HarvestCursor | null, opts: ReadPageOptions): Promise<HarvestPage>;
}
