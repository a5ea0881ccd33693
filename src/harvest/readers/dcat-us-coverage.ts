import type { Period, Place } from '../../domain/metadata/coverage.ts';
import { geometryProblem, type Geometry } from '../../domain/metadata/geojson.ts';

/**
 * DCAT-US `temporal` and `spatial`, both ways. Each side of an interval keeps its text (`2010-01-01` stays
 * a date), and a place keeps the string it came as: a name as its `name`, a box as its numbers, a GeoJSON
 * string as its geometry, a URI as its `uri`. What the exporter writes from them is what was read, for
 * the forms a source writes in practice; the others keep the source's text in an extra (dcat-us.ts).
 */

/** `start/end` (ISO 8601 dates or date-times; DCAT-US writes no open sides) → a period; null for other forms. */
export function temporalPeriod(value: unknown): Period | null {
  if (typeof value !== 'string') return null;
  const sides = value.split('/');
  if (sides.length !== 2 || !sides[0] || !sides[1]) return null;
  return { start: sides[0], end: sides[1] };
}

export function temporalText(period: Period | undefined): string | null {
  return period?.start && period.end ? `${period.start}/${period.end}` : null;
}

const NUMBER = String.raw`\s*(-?\d+(?:\.\d+)?)\s*`;
const BOX = new RegExp(`^${NUMBER},${NUMBER},${NUMBER},${NUMBER}$`);
const URI = /^https?:\/\/\S+$/;

/** A DCAT-US spatial value as a place: `W,S,E,N`, a GeoJSON geometry (text or object), a URI, or a name. */
export function spatialPlace(value: unknown): Place | null {
  if (value && typeof value === 'object') return geometryProblem(value) ? null : { geometry: value as Geometry };
  if (typeof value !== 'string' || !value.trim()) return null;
  const box = BOX.exec(value);
  if (box) return { bbox: box.slice(1, 5).map(Number) as [number, number, number, number] };
  if (value.trim().startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(value);
      return geometryProblem(parsed) ? null : { geometry: parsed as Geometry };
    } catch {
      return null;
    }
  }
  if (URI.test(value)) return { uri: value };
  return { name: value };
}

/** A place as DCAT-US text: its name, else its box, its geometry's JSON, its URI. */
export function spatialText(place: Place | undefined): string | null {
  if (!place) return null;
  if (place.name) return place.name;
  if (place.bbox) return place.bbox.join(',');
  if (place.geometry) return JSON.stringify(place.geometry);
  if (place.uri) return place.uri;
  if (place.centroid) return JSON.stringify({ type: 'Point', coordinates: place.centroid });
  return null;
}
