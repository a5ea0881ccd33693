import type { HarvestSourceType } from '../../entities/harvest-source.ts';
import type { SourceReader } from '../record.ts';
import { ckanReader } from './ckan.ts';
import { dcatApReader } from './dcat-ap.ts';
import { dcatUsReader } from './dcat-us.ts';

export interface SourceReaderOptions {
  /** Records per page: CKAN `rows` and the DCAT-US slice (100 unless told); DCAT-AP pages are the source's. */
  pageSize?: number;
  /**
   * Lets the reader reach private and loopback addresses. Harvest source URLs are set by a sysadmin, so
   * the workflow passes true; cloud-metadata addresses stay refused by safeFetch whatever this says.
   */
  allowPrivateNetworks: boolean;
}

/** The reader for a harvest source: its type and URL (a CKAN site root, a data.json, a DCAT-AP catalog). */
export function sourceReader(type: HarvestSourceType, url: string, opts: SourceReaderOptions): SourceReader {
  switch (type) {
    case 'ckan':
      return ckanReader(url, { rows: opts.pageSize, allowPrivateNetworks: opts.allowPrivateNetworks });
    case 'dcat-us':
      return dcatUsReader(url, { pageSize: opts.pageSize, allowPrivateNetworks: opts.allowPrivateNetworks });
    case 'dcat-ap':
      return dcatApReader(url, { allowPrivateNetworks: opts.allowPrivateNetworks });
  }
}

export { SourceInvalid, SourceUnavailable } from '../errors.ts';
