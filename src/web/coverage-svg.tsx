import type { Place } from '../domain/metadata/coverage.ts';
import { geometryBbox, type Geometry } from '../domain/metadata/geojson.ts';

/**
 * A dataset's spatial coverage drawn on the server as SVG: a longitude/latitude frame around its places
 * with a labelled graticule, each bbox as a rectangle, each geometry as its outline (points as dots). No
 * tile server and no script, so the page stays within its Content-Security-Policy; names reach the
 * drawing only as <title> text, which Preact escapes.
 */

const WIDTH = 360;
/** Graticule steps, in degrees: the first that draws at most about six lines across the frame. */
const STEPS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 45, 90];

type Box = [number, number, number, number];

/** The places' drawable extent: their boxes, geometries and centroids together, or null when none has one. */
export function placesExtent(places: Place[]): Box | null {
  const boxes = places.flatMap((p): Box[] => [
    ...(p.bbox ? [p.bbox as Box] : []),
    ...(p.geometry ? [geometryBbox(p.geometry as Geometry)] : []),
    ...(p.centroid ? [[p.centroid[0], p.centroid[1], p.centroid[0], p.centroid[1]] as Box] : []),
  ]);
  if (boxes.length === 0) return null;
  return boxes.reduce((a, b) => [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])]);
}

/** The frame: the extent with a margin (a point gets a degree around it), within the world. */
function frameOf([w, s, e, n]: Box): Box {
  const pad = Math.max((e - w) * 0.15, (n - s) * 0.15, 0.5);
  return [Math.max(-180, w - pad), Math.max(-90, s - pad), Math.min(180, e + pad), Math.min(90, n + pad)];
}

const round = (v: number) => Math.round(v * 100) / 100;
const degrees = (v: number, pos: string, neg: string) => `${round(Math.abs(v))}°${v === 0 ? '' : v > 0 ? pos : neg}`;

/** The positions of a geometry's drawable parts: rings and lines as point lists, points alone. */
function parts(g: Geometry): { lines: number[][][]; closed: number[][][]; points: number[][] } {
  switch (g.type) {
    case 'Point':
      return { lines: [], closed: [], points: [g.coordinates] };
    case 'MultiPoint':
      return { lines: [], closed: [], points: g.coordinates };
    case 'LineString':
      return { lines: [g.coordinates], closed: [], points: [] };
    case 'MultiLineString':
      return { lines: g.coordinates, closed: [], points: [] };
    case 'Polygon':
      return { lines: [], closed: g.coordinates, points: [] };
    case 'MultiPolygon':
      return { lines: [], closed: g.coordinates.flat(), points: [] };
    case 'GeometryCollection': {
      const all = g.geometries.map(parts);
      return { lines: all.flatMap((p) => p.lines), closed: all.flatMap((p) => p.closed), points: all.flatMap((p) => p.points) };
    }
  }
}

export function CoverageMap(props: { places: Place[] }) {
  const extent = placesExtent(props.places);
  if (!extent) return null;
  const [w, s, e, n] = frameOf(extent);
  // Plate carrée squeezed by the cosine of the middle latitude, so a region keeps roughly its shape.
  const squeeze = Math.max(0.2, Math.cos((((s + n) / 2) * Math.PI) / 180));
  const scale = WIDTH / ((e - w) * squeeze);
  const height = Math.max(60, Math.min(360, (n - s) * scale));
  const yScale = height / (n - s);
  const x = (lon: number) => round((lon - w) * squeeze * scale);
  const y = (lat: number) => round((n - lat) * yScale);
  const path = (positions: number[][], close: boolean) =>
    positions.map(([lon, lat], i) => `${i === 0 ? 'M' : 'L'}${x(lon!)} ${y(lat!)}`).join(' ') + (close ? ' Z' : '');
  const step = STEPS.find((st) => (e - w) / st <= 6 && (n - s) / st <= 6) ?? 90;
  const meridians: number[] = [];
  for (let lon = Math.ceil(w / step) * step; lon <= e; lon += step) meridians.push(round(lon));
  const parallels: number[] = [];
  for (let lat = Math.ceil(s / step) * step; lat <= n; lat += step) parallels.push(round(lat));
  const label = `Spatial coverage: ${props.places.length} place${props.places.length === 1 ? '' : 's'} within ${degrees(extent[0], 'E', 'W')} to ${degrees(extent[2], 'E', 'W')}, ${degrees(extent[1], 'N', 'S')} to ${degrees(extent[3], 'N', 'S')}`;
  return (
    <svg
      class="coverage-map"
      width={WIDTH}
      height={round(height)}
      viewBox={`0 0 ${WIDTH} ${round(height)}`}
      role="img"
      aria-label={label}
      xmlns="http://www.w3.org/2000/svg"
    >
      <rect x="0" y="0" width={WIDTH} height={round(height)} fill="#f4f7fa" stroke="#8a99a8" />
      <g class="graticule" stroke="#c9d3dc" stroke-width="0.5">
        {meridians.map((lon) => (
          <line x1={x(lon)} y1="0" x2={x(lon)} y2={round(height)} />
        ))}
        {parallels.map((lat) => (
          <line x1="0" y1={y(lat)} x2={WIDTH} y2={y(lat)} />
        ))}
      </g>
      <g class="graticule-labels" font-size="9" fill="#5b6b7a">
        {meridians.map((lon) => (
          <text x={x(lon) + 2} y={round(height) - 3}>
            {degrees(lon, 'E', 'W')}
          </text>
        ))}
        {parallels.map((lat) => (
          <text x="2" y={y(lat) - 2}>
            {degrees(lat, 'N', 'S')}
          </text>
        ))}
      </g>
      {props.places.map((p, i) => {
        const shape = p.geometry ? parts(p.geometry as Geometry) : null;
        return (
          <g class="place" fill="#2a7ab0" fill-opacity="0.2" stroke="#1d5b85" stroke-width="1.5">
            <title>{p.name ?? p.uri ?? `Place ${i + 1}`}</title>
            {p.bbox && <path class="bbox" d={path(boxRing(p.bbox as Box), true)} stroke-dasharray="4 2" />}
            {shape?.closed.map((ring) => (
              <path class="outline" d={path(ring, true)} />
            ))}
            {shape?.lines.map((line) => (
              <path class="outline" d={path(line, false)} fill="none" />
            ))}
            {[...(shape?.points ?? []), ...(p.centroid ? [p.centroid] : [])].map(([lon, lat]) => (
              <circle class="point" cx={x(lon!)} cy={y(lat!)} r="3" fill-opacity="0.8" />
            ))}
          </g>
        );
      })}
    </svg>
  );
}

const boxRing = ([w, s, e, n]: Box) => [
  [w, s],
  [e, s],
  [e, n],
  [w, n],
];
