import type { Period, Place } from '../domain/metadata/coverage.ts';
import { geometryBbox } from '../domain/metadata/geojson.ts';
import type { Agent } from '../domain/metadata/values.ts';

/**
 * The metadata record in schema.org's terms, for the schema.org JSON-LD and Croissant (both read by
 * Google Dataset Search): coverage, publisher, languages and themes. `prefix` is how the document names
 * schema.org's types: `''` in schema.org's own context, `sc:` in Croissant's.
 */

/** The record's keys these properties read (a REST dataset record and a feed dataset carry them all). */
export interface SchemaOrgRecord {
  temporal?: Period[] | null;
  spatial?: Place[] | null;
  /** An Agent: typed unknown because the REST record's zod type of a recursive agent infers no shape. */
  publisher?: unknown;
  language?: string[] | null;
  theme?: Array<{ uri?: string | null; label?: string | null }> | null;
}

/** One period as an ISO 8601 interval (`2010/2019-12-31`), `..` for an open end, as schema.org's temporalCoverage says. */
const interval = (p: Period) => `${p.start ?? '..'}/${p.end ?? '..'}`;

/** A box as schema.org's GeoShape writes it: "south west north east" (two lat-lon corners). */
const box = ([w, s, e, n]: readonly number[]) => `${s} ${w} ${n} ${e}`;

/** A polygon's outer ring as GeoShape's "lat lon lat lon …" (the first point again at the end). */
function polygon(place: Place): string | null {
  const g = place.geometry;
  if (g?.type !== 'Polygon') return null;
  const ring = (g.coordinates as number[][][])[0] ?? [];
  return ring.map(([lon, lat]) => `${lat} ${lon}`).join(' ');
}

function geo(place: Place, prefix: string) {
  const outline = polygon(place);
  if (outline) return { '@type': `${prefix}GeoShape`, polygon: outline };
  const around = place.bbox ?? (place.geometry ? geometryBbox(place.geometry) : null);
  if (around) return { '@type': `${prefix}GeoShape`, box: box(around) };
  if (place.centroid) return { '@type': `${prefix}GeoCoordinates`, longitude: place.centroid[0], latitude: place.centroid[1] };
  return null;
}

const place = (p: Place, prefix: string) => {
  const shape = geo(p, prefix);
  return {
    '@type': `${prefix}Place`,
    ...(p.uri ? { '@id': p.uri } : {}),
    ...(p.name ? { name: p.name } : {}),
    ...(shape ? { geo: shape } : {}),
  };
};

/** An agent as a schema.org Organization, with the organizations above it as parentOrganization. */
export function schemaOrgAgent(agent: unknown, prefix: string): Record<string, unknown> {
  const a = agent as Agent;
  return {
    '@type': `${prefix}Organization`,
    ...(a.uri ? { '@id': a.uri } : {}),
    name: a.name ?? a.uri,
    ...(a.url ? { url: a.url } : {}),
    ...(a.email ? { email: a.email } : {}),
    ...(a.subOrganizationOf ? { parentOrganization: schemaOrgAgent(a.subOrganizationOf, prefix) } : {}),
  };
}

/** A language as inLanguage wants it: a BCP 47 tag; the EU language table's IRIs give their ISO 639-3 code. */
const languageTag = (l: string) => (/^https?:/.test(l) ? (l.split('/').pop() ?? l).toLowerCase() : l);

/** Tags, then the themes' labels not already among them: what a search engine reads as the dataset's keywords. */
export function schemaOrgKeywords(tags: string[], record: SchemaOrgRecord): string[] {
  const words = [...tags];
  for (const t of record.theme ?? []) if (t.label && !words.includes(t.label)) words.push(t.label);
  return words;
}

/** temporalCoverage, spatialCoverage and inLanguage, each only when the record has it (one value alone, several as a list). */
export function schemaOrgCoverage(record: SchemaOrgRecord, prefix: string) {
  const one = <T>(values: T[]) => (values.length === 1 ? values[0] : values);
  const periods = (record.temporal ?? []).map(interval);
  const places = (record.spatial ?? []).map((p) => place(p, prefix));
  const languages = (record.language ?? []).map(languageTag);
  return {
    ...(periods.length ? { temporalCoverage: one(periods) } : {}),
    ...(places.length ? { spatialCoverage: one(places) } : {}),
    ...(languages.length ? { inLanguage: one(languages) } : {}),
  };
}
