import { z } from 'zod';
import { geometry, geometryBbox } from './geojson.ts';
import { iri, isoInstant, list, text } from './values.ts';

/**
 * When and where a dataset's data is about (dct:temporal, dct:spatial), and the columns that let a search
 * filter on them inside SQL: the earliest start and latest end of its periods, and one box around all of
 * its places (PostgreSQL's `box`, with a GiST index).
 */

/** The first instant a date of any precision covers (`2010` → 2010-01-01T00:00:00Z); a time without a zone is UTC. */
export function instantFloor(value: string): Date {
  const [date, time] = value.replace(' ', 'T').split('T') as [string, string | undefined];
  const [y, m = '01', d = '01'] = date.split('-');
  const zoned = time && /(Z|[+-]\d{2}(:?\d{2})?)$/.test(time) ? time : time ? `${time}Z` : 'T00:00:00Z';
  return new Date(`${y}-${m}-${d}${time ? `T${zoned}` : zoned}`.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
}

/** The last instant a date covers (`2010` → the end of 2010-12-31; `2010-05-01T12:00:00Z` itself). */
export function instantCeiling(value: string): Date {
  if (value.includes('T') || value.includes(' ')) return instantFloor(value);
  const [y, m, d] = value.split('-').map(Number) as [number, number | undefined, number | undefined];
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0–99 as 1900–1999.
  const next = new Date(0);
  if (d !== undefined) next.setUTCFullYear(y, m! - 1, d + 1);
  else if (m !== undefined) next.setUTCFullYear(y, m, 1);
  else next.setUTCFullYear(y + 1, 0, 1);
  return new Date(next.getTime() - 1);
}

export const period = z
  .strictObject({ start: isoInstant.nullish(), end: isoInstant.nullish() })
  .refine((p) => p.start || p.end, 'must have a start or an end (either may be open)')
  .refine((p) => !p.start || !p.end || instantFloor(p.start) <= instantCeiling(p.end), {
    message: 'must not end before it starts',
    path: ['end'],
  })
  .meta({ id: 'Period' });
export type Period = z.infer<typeof period>;

/**
 * A tuple documented as an array of numbers of its length: zod-openapi writes `prefixItems`, which
 * Schemathesis turns into draft-7's `items: [..]` and then refuses as OpenAPI 3.1 (the whole operation
 * goes untested). The description says what each place holds; the validator checks each one's range.
 */
const tupleDoc = (size: number, about: string) => ({
  override: (ctx: { jsonSchema: Record<string, unknown> }) => {
    delete ctx.jsonSchema.prefixItems;
    Object.assign(ctx.jsonSchema, {
      items: { type: 'number', minimum: -180, maximum: 180 },
      minItems: size,
      maxItems: size,
      description: about,
    });
  },
});

const longitude = z.number().min(-180).max(180);
const latitude = z.number().min(-90).max(90);
/** [west, south, east, north] in WGS 84 degrees; a box across the antimeridian is two places. */
export const bbox = z
  .tuple([longitude, latitude, longitude, latitude], { error: 'must be [west, south, east, north] in degrees' })
  .refine(([w, s, e, n]) => w <= e && s <= n, 'must have west ≤ east and south ≤ north')
  .meta(tupleDoc(4, '[west, south, east, north] in WGS 84 degrees'));

/** A place: a geometry and/or a box, and/or its name or IRI (a gazetteer's: GeoNames, the EU place table). */
export const place = z
  .strictObject({
    name: text().nullish(),
    uri: iri.nullish(),
    geometry: geometry.nullish().describe('A GeoJSON geometry (RFC 7946)'),
    bbox: bbox.nullish(),
    centroid: z.tuple([longitude, latitude]).meta(tupleDoc(2, '[longitude, latitude] in WGS 84 degrees')).nullish(),
  })
  .refine((p) => p.name || p.uri || p.geometry || p.bbox || p.centroid, 'must have a name, a uri, a geometry or a bbox')
  .meta({ id: 'Place' });
export type Place = z.infer<typeof place>;

export const temporalCoverage = list(period, 50);
export const spatialCoverage = list(place, 50);

const OPEN_START = Date.parse('0001-01-01T00:00:00Z');
const OPEN_END = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export interface CoverageColumns {
  temporalStart: Date | null;
  temporalEnd: Date | null;
  /** PostgreSQL `box` text: `(east,north),(west,south)`. */
  spatialBox: string | null;
}

/**
 * The columns a coverage filter reads. An open start or end reaches as far as the column does (years 1
 * and 9999), so an open period overlaps every range on its open side.
 */
export function coverageColumns(temporal: Period[] | null | undefined, spatial: Place[] | null | undefined): CoverageColumns {
  const periods = temporal ?? [];
  // Within the columns' reach: a date near year 9999 with a zone offset lands past it.
  const clamp = (t: number) => Math.min(Math.max(t, OPEN_START), OPEN_END);
  const starts = periods.map((p) => clamp(p.start ? instantFloor(p.start).getTime() : OPEN_START));
  const ends = periods.map((p) => clamp(p.end ? instantCeiling(p.end).getTime() : OPEN_END));
  const boxes = (spatial ?? [])
    .flatMap((p) =>
      p.bbox ? [p.bbox] : p.geometry ? [geometryBbox(p.geometry)] : p.centroid ? [[...p.centroid, ...p.centroid] as const] : [],
    )
    .filter((b) => b.every(Number.isFinite));
  const around = boxes.reduce<number[] | null>(
    (acc, b) => (acc ? [Math.min(acc[0]!, b[0]), Math.min(acc[1]!, b[1]), Math.max(acc[2]!, b[2]), Math.max(acc[3]!, b[3])] : [...b]),
    null,
  );
  return {
    temporalStart: periods.length ? new Date(Math.min(...starts)) : null,
    temporalEnd: periods.length ? new Date(Math.max(...ends)) : null,
    spatialBox: around ? `(${around[2]},${around[3]}),(${around[0]},${around[1]})` : null,
  };
}
