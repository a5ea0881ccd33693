/**
 * What every source reader (src/harvest/readers/) yields and what the domain applies
 * (src/domain/harvest/): a remote catalog's dataset mapped to Almanac's fields, the same shape from
 * CKAN, DCAT-US and DCAT-AP. Plain JSON, so it can cross a Temporal activity boundary.
 */
export interface HarvestRecord {
  /** The record's id at the source: a CKAN package id, a DCAT-US `identifier`, a DCAT-AP dataset IRI. */
  remoteId: string;
  /** The record's own page or document at the source, when it has one. */
  remoteUrl: string | null;
  /** The name the source uses (a CKAN name), else null: the domain derives one from the title. */
  name: string | null;
  title: string;
  notes: string | null;
  tags: string[];
  /** An id of src/domain/licenses.ts when the source's license is recognised, else the source's own id or URL. */
  licenseId: string | null;
  /** The organization at the source (mirrored by name for CKAN sources; ignored for the others). */
  organization: { name: string; title: string; description: string | null } | null;
  /** Categories (CKAN groups), mirrored by name. */
  groups: Array<{ name: string; title: string }>;
  /** DCAT-US `accessLevel: restricted public` and CKAN private datasets stay within the organization. */
  private: boolean;
  author: string | null;
  authorEmail: string | null;
  maintainer: string | null;
  maintainerEmail: string | null;
  version: string | null;
  url: string | null;
  /** When the source last changed it (ISO 8601), if it says. */
  modified: string | null;
  resources: HarvestResource[];
}

export interface HarvestResource {
  url: string;
  name: string | null;
  description: string | null;
  format: string | null;
  mimetype: string | null;
  size: number | null;
}

/**
 * One record of a page: mapped, or refused with its reason (a record never stops a run). `withdrawn`:
 * refused because the source says it is not public (DCAT-US `accessLevel: non-public`, DCAT-AP
 * `NON_PUBLIC`), so a dataset harvested from it before is taken out of public view (src/domain/harvest).
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
