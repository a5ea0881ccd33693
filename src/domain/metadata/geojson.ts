import { z } from 'zod';

/**
 * A GeoJSON geometry (RFC 7946 §3.1) as a dataset's spatial coverage holds it. Checked by hand rather
 * than by a recursive zod union, so a malformed one gets one message that says where, and a huge or
 * deeply nested one is refused before it is walked.
 */
export type Geometry =
  | { type: 'Point'; coordinates: Position }
  | { type: 'MultiPoint' | 'LineString'; coordinates: Position[] }
  | { type: 'MultiLineString' | 'Polygon'; coordinates: Position[][] }
  | { type: 'MultiPolygon'; coordinates: Position[][][] }
  | { type: 'GeometryCollection'; geometries: Geometry[] };
type Position = number[];

/** The positions a geometry may hold: a detailed country outline is ~10k; a coverage is a summary, not a survey. */
export const MAX_POSITIONS = 20_000;
const MAX_COLLECTION_DEPTH = 3;

/** How deep each type's `coordinates` nest above a position. */
const DEPTH = { Point: 0, MultiPoint: 1, LineString: 1, MultiLineString: 2, Polygon: 2, MultiPolygon: 3 } as const;

/** Why `value` is not a geometry, or null when it is one. */
export function geometryProblem(value: unknown, budget = { positions: 0 }, level = 0): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be a GeoJSON geometry object';
  const g = value as Record<string, unknown>;
  const extra = Object.keys(g).filter((k) => !['type', 'coordinates', 'geometries', 'bbox'].includes(k));
  if (extra.length > 0) return `must be a GeoJSON geometry: unexpected key "${extra[0]}"`;
  if (g.type === 'GeometryCollection') {
    if (level >= MAX_COLLECTION_DEPTH) return `must not nest geometry collections more than ${MAX_COLLECTION_DEPTH} deep`;
    if (!Array.isArray(g.geometries) || g.geometries.length === 0) return 'a GeometryCollection must have a non-empty "geometries" array';
    for (const member of g.geometries) {
      const problem = geometryProblem(member, budget, level + 1);
      if (problem) return problem;
    }
    return null;
  }
  if (typeof g.type !== 'string' || !(g.type in DEPTH)) {
    return 'must be a GeoJSON geometry: "type" is one of Point, MultiPoint, LineString, MultiLineString, Polygon, MultiPolygon, GeometryCollection';
  }
  return coordinatesProblem(g.coordinates, DEPTH[g.type as keyof typeof DEPTH], budget) ?? ringProblem(g);
}

function coordinatesProblem(value: unknown, depth: number, budget: { positions: number }): string | null {
  if (!Array.isArray(value)) return '"coordinates" must be nested arrays of positions';
  // An empty geometry covers nowhere, and has no box (it would be stored as the whole plane).
  if (depth > 0 && value.length === 0) return '"coordinates" must not be empty';
  if (depth === 0) {
    if (++budget.positions > MAX_POSITIONS) return `too big: more than ${MAX_POSITIONS.toLocaleString('en-US')} positions`;
    if (value.length < 2 || value.length > 3 || !value.every((n) => typeof n === 'number' && Number.isFinite(n))) {
      return 'a position must be [longitude, latitude] (or with an altitude)';
    }
    const [lon, lat] = value as number[];
    if (lon! < -180 || lon! > 180 || lat! < -90 || lat! > 90) return 'a position must have -180 ≤ longitude ≤ 180 and -90 ≤ latitude ≤ 90';
    return null;
  }
  for (const member of value) {
    const problem = coordinatesProblem(member, depth - 1, budget);
    if (problem) return problem;
  }
  return null;
}

/** RFC 7946 §3.1.6: a polygon's rings are closed, of four positions or more. */
function ringProblem(g: Record<string, unknown>): string | null {
  const polygons = g.type === 'Polygon' ? [g.coordinates] : g.type === 'MultiPolygon' ? (g.coordinates as unknown[]) : [];
  for (const rings of polygons as number[][][][]) {
    for (const ring of rings) {
      const [first, last] = [ring[0], ring[ring.length - 1]];
      if (ring.length < 4 || first![0] !== last![0] || first![1] !== last![1]) {
        return 'a polygon ring must be closed (its first and last positions equal) and have at least 4 positions';
      }
    }
  }
  return null;
}

export const geometry = z
  .custom<Geometry>((v) => geometryProblem(v) === null, {
    error: (issue) => geometryProblem(issue.input) ?? 'must be a GeoJSON geometry',
  })
  .meta({
    override: (ctx) =>
      void Object.assign(ctx.jsonSchema, {
        type: 'object',
        required: ['type'],
        properties: {
          type: { enum: ['Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon', 'GeometryCollection'] },
          coordinates: { type: 'array' },
          geometries: { type: 'array', items: { type: 'object' } },
        },
        description: `A GeoJSON geometry (RFC 7946 §3.1), at most ${MAX_POSITIONS} positions`,
      }),
  });

/** [west, south, east, north] around every position of a geometry. */
export function geometryBbox(g: Geometry): [number, number, number, number] {
  const box = [Infinity, Infinity, -Infinity, -Infinity] as [number, number, number, number];
  const visit = (value: unknown): void => {
    if (!Array.isArray(value)) return;
    if (typeof value[0] === 'number') {
      const [lon, lat] = value as number[];
      box[0] = Math.min(box[0], lon!);
      box[1] = Math.min(box[1], lat!);
      box[2] = Math.max(box[2], lon!);
      box[3] = Math.max(box[3], lat!);
      return;
    }
    value.forEach(visit);
  };
  const walk = (geom: Geometry): void => (geom.type === 'GeometryCollection' ? geom.geometries.forEach(walk) : visit(geom.coordinates));
  walk(g);
  return box;
}
