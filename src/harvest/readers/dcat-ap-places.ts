import type { RdfGraph, RdfTerm } from './rdf-terms.ts';

/**
 * A dct:Location as the record's place: its gazetteer IRI, name, geometry (locn:geometry as GeoJSON, or
 * WKT POINT / POLYGON converted to GeoJSON), box (dcat:bbox) and centroid. A literal form the record
 * does not keep (WKT) comes back out from the raw triples the lossless check keeps.
 */
const DCAT = 'http://www.w3.org/ns/dcat#';
const LOCN = 'http://www.w3.org/ns/locn#';
const SKOS = 'http://www.w3.org/2004/02/skos/core#';
const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
const GSP = 'http://www.opengis.net/ont/geosparql#';

type Position = [number, number];
type Geometry = { type: 'Point'; coordinates: Position } | { type: 'Polygon'; coordinates: Position[][] };

const positions = (text: string): Position[] =>
  text.split(',').map((pair) => {
    const [x, y] = pair.trim().split(/\s+/).map(Number);
    return [x!, y!];
  });

/** WKT (optionally with its `<crs>` prefix) or GeoJSON text as a GeoJSON geometry, else null. */
export function geometryOf(text: string): Geometry | Record<string, unknown> | null {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      return JSON.parse(trimmed) as Record<string, unknown>;
    } catch {
      return null;
    }
  }
  const wkt = trimmed.replace(/^<[^>]*>\s*/, '');
  const point = /^POINT\s*\(\s*([^)]+)\)$/i.exec(wkt);
  if (point) return { type: 'Point', coordinates: positions(point[1]!)[0]! };
  const polygon = /^POLYGON\s*\(\s*(\(.*\))\s*\)$/i.exec(wkt);
  if (polygon) {
    const rings = [...polygon[1]!.matchAll(/\(([^()]*)\)/g)].map((m) => positions(m[1]!));
    return { type: 'Polygon', coordinates: rings };
  }
  return null;
}

/** A box [W,S,E,N] from a bbox literal: WKT polygon or GeoJSON. */
function boxOf(text: string): number[] | null {
  const geometry = geometryOf(text);
  const coordinates = (geometry as { coordinates?: unknown })?.coordinates;
  const flat = (JSON.stringify(coordinates ?? null).match(/-?\d+(\.\d+)?(e-?\d+)?/gi) ?? []).map(Number);
  if (flat.length < 2) return null;
  const xs = flat.filter((_, i) => i % 2 === 0);
  const ys = flat.filter((_, i) => i % 2 === 1);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

export function placeOf(graph: RdfGraph, node: RdfTerm) {
  if (node.termType === 'Literal') return { name: node.value };
  const given = graph.object(node, `${LOCN}geometry`);
  // A literal, or a locn:Geometry node with its GeoJSON or WKT text.
  const geometry =
    given && given.termType !== 'Literal' ? (graph.object(given, `${GSP}asGeoJSON`) ?? graph.object(given, `${GSP}asWKT`)) : given;
  const bbox = graph.object(node, `${DCAT}bbox`);
  const centroid = graph.object(node, `${DCAT}centroid`);
  const centre = centroid ? (geometryOf(centroid.value) as { coordinates?: Position } | null) : null;
  return {
    uri: node.termType === 'NamedNode' ? node.value : null,
    name: graph.text(node, `${SKOS}prefLabel`) ?? graph.text(node, `${LOCN}geographicName`) ?? graph.text(node, `${RDFS}label`),
    geometry: geometry ? geometryOf(geometry.value) : null,
    bbox: bbox ? boxOf(bbox.value) : null,
    centroid: centre?.coordinates ?? null,
  };
}
