import { LICENSES } from '../domain/licenses.ts';

/**
 * A source's license (a CKAN id, a DCAT-US license URL, a DCAT-AP license IRI) as a `licenseId`: an id
 * of src/domain/licenses.ts when the value names one of its licenses, else the value as the source wrote
 * it. Absent is `notspecified` (CKAN's "License not specified"), as the shared corpus records it, so a
 * harvested dataset can be published. Almanac's `licenseId` holds 100 characters: a longer unrecognised
 * URL cannot be kept whole, and a cut URL would point nowhere, so it becomes `notspecified` too.
 */
export const NO_LICENSE = 'notspecified';
const MAX_LICENSE_ID = 100;

/** `https://www.Example.org/a/b/` and `http://example.org/a/b` compare equal: scheme, `www.`, case of the host and end slash dropped. */
export function licenseUrlKey(url: string): string | null {
  if (!URL.canParse(url)) return null;
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  const path = parsed.pathname.replace(/\/+$/, '').replace(/\/(legalcode|deed\.[a-z-]+)$/i, '');
  return `${parsed.hostname.replace(/^www\./, '')}${path}${parsed.search}`;
}

/**
 * License documents that real catalogs name by another URL than the table's: Creative Commons' own pages,
 * Open Data Commons', usa.gov's, the UK OGL's, and the EU Publications Office's licence authority.
 */
const ALIASES: Record<string, string> = {
  'creativecommons.org/publicdomain/zero/1.0': 'cc-zero',
  'creativecommons.org/licenses/by/4.0': 'cc-by-4.0',
  'creativecommons.org/licenses/by/3.0': 'cc-by',
  'creativecommons.org/licenses/by/2.5': 'cc-by',
  'creativecommons.org/licenses/by/2.0': 'cc-by',
  'creativecommons.org/licenses/by-sa/4.0': 'cc-by-sa',
  'creativecommons.org/licenses/by-sa/3.0': 'cc-by-sa',
  'creativecommons.org/licenses/by-nc/4.0': 'cc-nc',
  'creativecommons.org/licenses/by-nc/3.0': 'cc-nc',
  'opendatacommons.org/licenses/pddl': 'odc-pddl',
  'opendatacommons.org/licenses/pddl/1.0': 'odc-pddl',
  'opendatacommons.org/licenses/odbl': 'odc-odbl',
  'opendatacommons.org/licenses/odbl/1.0': 'odc-odbl',
  'opendatacommons.org/licenses/by': 'odc-by',
  'opendatacommons.org/licenses/by/1.0': 'odc-by',
  'usa.gov/government-works': 'us-pd',
  'usa.gov/publicdomain/label/1.0': 'us-pd',
  'nationalarchives.gov.uk/doc/open-government-licence': 'uk-ogl',
  'nationalarchives.gov.uk/doc/open-government-licence/version/3': 'uk-ogl',
  'gnu.org/licenses/fdl': 'gfdl',
  'publications.europa.eu/resource/authority/licence/CC0': 'cc-zero',
  'publications.europa.eu/resource/authority/licence/CC_BY_4_0': 'cc-by-4.0',
  'publications.europa.eu/resource/authority/licence/CC_BY_SA_4_0': 'cc-by-sa',
  'publications.europa.eu/resource/authority/licence/CC_BY_NC_4_0': 'cc-nc',
  'publications.europa.eu/resource/authority/licence/ODC_BL': 'odc-odbl',
  'publications.europa.eu/resource/authority/licence/ODC_PDDL': 'odc-pddl',
  'publications.europa.eu/resource/authority/licence/ODC_BY': 'odc-by',
  'publications.europa.eu/resource/authority/licence/OGL_3_0': 'uk-ogl',
};

const BY_URL = new Map<string, string>();
for (const [key, id] of Object.entries(ALIASES)) BY_URL.set(key.toLowerCase(), id);
for (const license of LICENSES) {
  const key = license.url ? licenseUrlKey(license.url) : null;
  if (key) BY_URL.set(key.toLowerCase(), license.id);
}
const IDS = new Set(LICENSES.map((license) => license.id));

/** The license a URL names in the table (or its aliases), else null. */
export function licenseIdForUrl(url: string): string | null {
  const key = licenseUrlKey(url.trim());
  return key ? (BY_URL.get(key.toLowerCase()) ?? null) : null;
}

/** A source's license id or URL as a `licenseId` (see above). */
export function licenseIdOf(value: string | null | undefined): string {
  const text = value?.trim();
  if (!text) return NO_LICENSE;
  if (IDS.has(text)) return text;
  const known = licenseIdForUrl(text);
  if (known) return known;
  return text.length <= MAX_LICENSE_ID ? text : NO_LICENSE;
}
