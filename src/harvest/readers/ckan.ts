import type { PrivateNetworks } from '../../net/safe-fetch.ts';
import { createHash } from 'node:crypto';
import { SourceInvalid } from '../../domain/harvest/errors.ts';
import { documentJson, fetchSourceDocument } from '../fetch-document.ts';
import { licenseIdOf } from '../licenses.ts';
import { isSlug, slugFrom } from '../../domain/harvest/names.ts';
import type {
  HarvestCursor,
  HarvestItem,
  HarvestPage,
  HarvestResource,
  ReadPageOptions,
  SourceReader,
} from '../../domain/harvest/record.ts';
import { cleanTags } from '../tags.ts';
import { ckanDatasetMetadata, ckanResourceMetadata } from './ckan-record.ts';
import { byteCount, email, isoInstant, list, object, text } from '../values.ts';

/**
 * A CKAN site read through its Action API the way ckanext-harvest's CKAN harvester gathers
 * (ckanext/harvest/harvesters/ckanharvester.py, `_search_for_datasets`): `package_search` with
 * `rows`/`start` (advanced by the results received) and `sort=id asc` (ids do not change while paging, so a dataset added meanwhile can at
 * worst be seen twice, and the domain counts a record once per run), incremental runs with
 * `fq=metadata_modified:[<since>Z TO *]`, stop at an empty page, and fail when a page is byte for byte
 * the page before (the site ignores `start`: paging would never end). One page per readPage; the cursor
 * carries the next `start` and a digest of the page just read.
 */
export const CKAN_PAGE_ROWS = 100;
export const CKAN_PAGE_MAX_BYTES = 50 * 1024 * 1024;

export interface CkanReaderOptions {
  rows?: number;
  allowPrivateNetworks: PrivateNetworks;
}

/** The site root from what a sysadmin may paste: trailing slashes and an `/api/3/action` tail dropped. */
export function ckanSiteRoot(url: string): string {
  return url
    .trim()
    .replace(/\/+$/, '')
    .replace(/\/api(\/\d+)?(\/action)?$/, '')
    .replace(/\/+$/, '');
}

export function ckanReader(url: string, opts: CkanReaderOptions): SourceReader {
  const site = ckanSiteRoot(url);
  const rows = opts.rows ?? CKAN_PAGE_ROWS;
  if (!Number.isSafeInteger(rows) || rows < 1) throw new RangeError(`rows must be a positive whole number, not ${rows}`);
  return {
    async readPage(cursor: HarvestCursor | null, read: ReadPageOptions): Promise<HarvestPage> {
      const start = typeof cursor?.start === 'number' ? cursor.start : 0;
      const params = new URLSearchParams({ rows: String(rows), start: String(start), sort: 'id asc' });
      if (read.since) params.set('fq', `metadata_modified:[${read.since.toISOString()} TO *]`);
      const searchUrl = `${site}/api/3/action/package_search?${params}`;
      const doc = await fetchSourceDocument(searchUrl, {
        timeoutMs: read.timeoutMs,
        maxBytes: CKAN_PAGE_MAX_BYTES,
        allowPrivateNetworks: opts.allowPrivateNetworks,
        accept: 'application/json',
      });
      const digest = createHash('sha256').update(doc.body).digest('hex');
      if (cursor?.previous === digest) {
        throw new SourceInvalid(`the paging of ${site} does not seem to work: ${searchUrl} answered the same page as the one before`);
      }
      const results = searchResults(documentJson(doc, 'a CKAN API answer'), searchUrl);
      if (results.length === 0) return { items: [], next: null };
      // By what came, not by what was asked: a site capping `rows` lower (CKAN's ckan.search.rows_max)
      // would otherwise have every page past its cap skipped.
      return { items: results.map((dict) => ckanPackageItem(site, dict)), next: { start: start + results.length, previous: digest } };
    },
  };
}

/** `result.results` of a successful package_search answer, or SourceInvalid saying what came instead. */
function searchResults(body: unknown, searchUrl: string): unknown[] {
  const answer = object(body);
  const result = object(answer?.result);
  if (answer?.success === true && result && Array.isArray(result.results)) return result.results;
  const error = object(answer?.error);
  const said = text(error?.message) ?? text(answer?.error);
  if (answer && answer.success === false) {
    throw new SourceInvalid(`${searchUrl} refused the search${said ? `: ${said}` : ''}`);
  }
  throw new SourceInvalid(`${searchUrl} is not a CKAN Action API: no success flag with result.results in its answer`);
}

/**
 * One package dict of package_search as a harvest item: a record, or refused with its reason. Its
 * metadata record, extras and scheming fields are read by ckan-record.ts.
 */
export function ckanPackageItem(site: string, value: unknown): HarvestItem {
  const dict = object(value);
  const remoteId = text(dict?.id);
  const sourceName = text(dict?.name);
  const title = text(dict?.title) ?? sourceName;
  if (!dict || !remoteId)
    return { kind: 'refused', remoteId: remoteId ?? sourceName ?? '(no id)', title, reason: 'a package without an id' };
  if (!title) return { kind: 'refused', remoteId, title: null, reason: 'a package with neither a title nor a name' };
  const organization = object(dict.organization);
  const orgName = text(organization?.name);
  return {
    kind: 'record',
    record: {
      remoteId,
      remoteUrl: sourceName ? `${site}/dataset/${encodeURIComponent(sourceName)}` : null,
      name: sourceName && isSlug(sourceName) ? sourceName : slugFrom(sourceName ?? '') || null,
      title,
      notes: text(dict.notes),
      tags: cleanTags(
        list(dict.tags)
          .map(object)
          .filter((tag) => tag && !text(tag.vocabulary_id))
          .map((tag) => text(tag!.display_name) ?? text(tag!.name)),
      ),
      licenseId: licenseIdOf(text(dict.license_id)),
      organization:
        organization && orgName
          ? { name: orgName, title: text(organization.title) ?? orgName, description: text(organization.description) }
          : null,
      groups: list(dict.groups).flatMap((value) => {
        const group = object(value);
        const name = text(group?.name);
        return name ? [{ name, title: text(group!.title) ?? text(group!.display_name) ?? name }] : [];
      }),
      private: dict.private === true,
      author: text(dict.author),
      authorEmail: email(dict.author_email),
      maintainer: text(dict.maintainer),
      maintainerEmail: email(dict.maintainer_email),
      version: text(dict.version),
      url: text(dict.url),
      modified: isoInstant(dict.metadata_modified),
      ...ckanDatasetMetadata(dict),
      resources: list(dict.resources).flatMap((value) => {
        const resource = ckanResource(value);
        return resource ? [resource] : [];
      }),
    },
  };
}

/** A resource dict with a URL (an upload whose bytes never arrived has none, and nothing to link to). */
function ckanResource(value: unknown): HarvestResource | null {
  const dict = object(value);
  const url = text(dict?.url);
  if (!dict || !url) return null;
  return {
    url,
    name: text(dict.name),
    description: text(dict.description),
    format: text(dict.format),
    mimetype: text(dict.mimetype),
    size: byteCount(dict.size),
    ...ckanResourceMetadata(dict),
  };
}
