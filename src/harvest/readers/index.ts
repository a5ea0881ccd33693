import type { PrivateNetworks } from '../../net/safe-fetch.ts';
import type { HarvestSourceType } from '../../entities/harvest-source.ts';
import type { SourceReader } from '../../domain/harvest/record.ts';
import type { SourceDefaults, SourceFilters } from '../../domain/harvest/source-filters.ts';
import { ckanReader } from './ckan.ts';
import { dcatApReader } from './dcat-ap.ts';
import { dcatUsReader } from './dcat-us.ts';

export interface SourceReaderOptions {
  /** Records per page: CKAN `rows` and the DCAT-US slice (100 unless told); DCAT-AP pages are the source's. */
  pageSize?: number;
  /**
   * Which URLs may reach private and loopback addresses (cloud-metadata addresses stay refused by
   * safeFetch whatever this says). The workflow passes sourceHostOnly(url): see there.
   */
  allowPrivateNetworks: PrivateNetworks;
  /** DCAT-US sources: the source's filters and defaults (src/domain/harvest/source-filters.ts). */
  filters?: SourceFilters;
  defaults?: SourceDefaults;
}

/** The reader for a harvest source: its type and URL (a CKAN site root, a data.json, a DCAT-AP catalog). */
export function sourceReader(type: HarvestSourceType, url: string, opts: SourceReaderOptions): SourceReader {
  switch (type) {
    case 'ckan':
      return ckanReader(url, { rows: opts.pageSize, allowPrivateNetworks: opts.allowPrivateNetworks });
    case 'dcat-us':
      return dcatUsReader(url, {
        pageSize: opts.pageSize,
        allowPrivateNetworks: opts.allowPrivateNetworks,
        filters: opts.filters,
        defaults: opts.defaults,
      });
    case 'dcat-ap':
      return dcatApReader(url, { allowPrivateNetworks: opts.allowPrivateNetworks });
  }
}

/**
 * Private addresses for the source's own host alone. A sysadmin set the source URL, so it may be an
 * intranet catalog; the documents it serves are a stranger's text, and the pages, JSON-LD contexts and
 * redirects they lead to on other hosts get the guard any fetched link gets.
 */
export function sourceHostOnly(sourceUrl: string): (url: URL) => boolean {
  const host = new URL(sourceUrl).host;
  return (url) => url.host === host;
}

export { SourceInvalid, SourceUnavailable } from '../../domain/harvest/errors.ts';
