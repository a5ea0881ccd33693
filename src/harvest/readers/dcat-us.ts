import type { PrivateNetworks } from '../../net/safe-fetch.ts';
import { createHash } from 'node:crypto';
import { SourceInvalid } from '../../domain/harvest/errors.ts';
import { documentJson, fetchSourceDocument } from '../fetch-document.ts';
import type { HarvestCursor, HarvestItem, HarvestPage, ReadPageOptions, SourceReader } from '../../domain/harvest/record.ts';
import { excludedBy, withDefaults, type SourceDefaults, type SourceFilters } from '../../domain/harvest/source-filters.ts';
import { object, text } from '../values.ts';
import { dcatUsRecord } from './dcat-us-record.ts';

/**
 * A DCAT-US 1.1 (Project Open Data) `data.json`, read in slices of `pageSize` datasets; the cursor is
 * `{offset, digest}`.
 *
 * The document is one file, often tens of megabytes (up to DATA_JSON_MAX_BYTES), so it is not fetched
 * again for every page: the first page of a run fetches it and keeps its datasets in memory for the pages
 * after (a few entries, each dropped after minutes unused). Fetching per page would download a 50 MB
 * catalog 500 times for a 50,000-dataset harvest, and a catalog republished mid-run would shift the
 * slices under the cursor. The cursor carries the document's digest: when a later page finds the cache
 * gone (another worker, a restart) and the re-fetched document differs, the reader starts again from its
 * first dataset, under the new digest; records read before count once (the domain keys them by remote
 * id), and none is skipped. A dataset the source's `filters` leave out is no item at all: a full run
 * counts one harvested before as removed, as it would one gone from the document.
 */
export const DCAT_US_PAGE_SIZE = 100;
export const DATA_JSON_MAX_BYTES = 200 * 1024 * 1024;
const CACHE_IDLE_MS = 10 * 60 * 1000;
const CACHE_ENTRIES = 4;

export interface DcatUsSourceConfig {
  filters?: SourceFilters;
  defaults?: SourceDefaults;
}

export interface DcatUsReaderOptions extends DcatUsSourceConfig {
  pageSize?: number;
  allowPrivateNetworks: PrivateNetworks;
}

interface LoadedCatalog {
  digest: string;
  datasets: unknown[];
  /** Position of each identifier's first dataset, to refuse repeats. */
  firstAt: Map<string, number>;
}

const cache = new Map<string, { catalog: Promise<LoadedCatalog>; lastUsed: number }>();

export function dcatUsReader(url: string, opts: DcatUsReaderOptions): SourceReader {
  const pageSize = opts.pageSize ?? DCAT_US_PAGE_SIZE;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1) throw new RangeError(`pageSize must be a positive whole number, not ${pageSize}`);
  return {
    async readPage(cursor: HarvestCursor | null, read: ReadPageOptions): Promise<HarvestPage> {
      const fresh = cursor === null;
      const catalog = await loadCatalog(url, { fresh, timeoutMs: read.timeoutMs, allowPrivateNetworks: opts.allowPrivateNetworks });
      let offset = typeof cursor?.offset === 'number' ? cursor.offset : 0;
      if (!fresh && typeof cursor?.digest === 'string' && cursor.digest !== catalog.digest) {
        // Republished since the run began: read the new document from its start.
        offset = 0;
      }
      const slice = catalog.datasets.slice(offset, offset + pageSize);
      const items = slice.flatMap((value, i) => dcatUsItem(value, offset + i, catalog.firstAt, opts) ?? []);
      const end = offset + slice.length;
      return { items, next: end < catalog.datasets.length ? { offset: end, digest: catalog.digest } : null };
    },
  };
}

async function loadCatalog(
  url: string,
  opts: { fresh: boolean; timeoutMs: number; allowPrivateNetworks: PrivateNetworks },
): Promise<LoadedCatalog> {
  const now = Date.now();
  for (const [key, entry] of cache) if (now - entry.lastUsed > CACHE_IDLE_MS) cache.delete(key);
  const held = cache.get(url);
  if (held && !opts.fresh) {
    held.lastUsed = now;
    return held.catalog;
  }
  const catalog = fetchCatalog(url, opts);
  cache.set(url, { catalog, lastUsed: now });
  catalog.catch(() => {
    if (cache.get(url)?.catalog === catalog) cache.delete(url);
  });
  while (cache.size > CACHE_ENTRIES) {
    const oldest = [...cache.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0]![0];
    cache.delete(oldest);
  }
  return catalog;
}

async function fetchCatalog(url: string, opts: { timeoutMs: number; allowPrivateNetworks: PrivateNetworks }): Promise<LoadedCatalog> {
  const doc = await fetchSourceDocument(url, {
    timeoutMs: opts.timeoutMs,
    maxBytes: DATA_JSON_MAX_BYTES,
    allowPrivateNetworks: opts.allowPrivateNetworks,
    accept: 'application/json',
  });
  const body = documentJson(doc, 'a DCAT-US data.json');
  // DCAT-US 1.1 is a catalog object with `dataset`; 1.0 documents were the bare array of datasets.
  const datasets = Array.isArray(body) ? body : object(body)?.dataset;
  if (!Array.isArray(datasets)) throw new SourceInvalid(`${doc.url} is not a DCAT-US data.json: it has no "dataset" array`);
  const firstAt = new Map<string, number>();
  datasets.forEach((value, i) => {
    const id = text(object(value)?.identifier);
    if (id && !firstAt.has(id)) firstAt.set(id, i);
  });
  return { digest: createHash('sha256').update(doc.body).digest('hex'), datasets, firstAt };
}

/** Where a dataset without a usable identifier sits, as the id its refusal is reported under. */
const positionId = (index: number) => `dataset[${index}]`;

/**
 * One DCAT-US dataset as a harvest item, or null when the source's `filters` leave it out. Refused: no
 * identifier, no title, a repeated identifier. Every access level is imported as public metadata with
 * its level shown (as data.gov's harvester does): the level describes access to the data, and the agency
 * published the metadata in a public file; an operator who wants less sets a filter.
 */
export function dcatUsItem(
  value: unknown,
  index: number,
  firstAt?: Map<string, number>,
  config: DcatUsSourceConfig = {},
): HarvestItem | null {
  const given = object(value);
  if (!given) return { kind: 'refused', remoteId: positionId(index), title: null, reason: 'not a JSON object' };
  if (config.filters && excludedBy(given, config.filters)) return null;
  const d = config.defaults ? withDefaults(given, config.defaults) : given;
  const identifier = text(d.identifier);
  const title = text(d.title);
  if (!identifier) return { kind: 'refused', remoteId: positionId(index), title, reason: 'no identifier' };
  const first = firstAt?.get(identifier);
  if (first !== undefined && first !== index) {
    return {
      kind: 'refused',
      remoteId: `${identifier}#${positionId(index)}`,
      title,
      reason: `the identifier is repeated (first used by ${positionId(first)})`,
    };
  }
  if (!title) return { kind: 'refused', remoteId: identifier, title: null, reason: 'no title' };
  return { kind: 'record', record: dcatUsRecord(d, identifier, title) };
}
