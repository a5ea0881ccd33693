import { z } from 'zod';
import { instantCeiling, instantFloor } from '../metadata/coverage.ts';
import { isoInstant } from '../metadata/values.ts';
import { invalidParameters, type FieldError } from '../errors.ts';

/**
 * The coverage filters' input, as every entry point reads it: a box `W,S,E,N` in WGS 84 degrees and a
 * period whose either end may be open. Dates take the record's precisions (`2010`, `2010-05`,
 * `2010-05-01`, a date-time), read the way the record's own periods are read: a start from its first
 * instant, an end to its last, so `temporal_end=2010` keeps a dataset that starts on 31 December 2010.
 */

export type Bbox = [west: number, south: number, east: number, north: number];

const NUMBER = String.raw`\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*`;
const BBOX_TEXT = new RegExp(`^${NUMBER}(,${NUMBER}){3}$`);

/** Why a box is not a box, or null: out of range, or inverted (a box across the antimeridian is two searches). */
export function bboxProblem([w, s, e, n]: readonly number[]): string | null {
  if (![w, s, e, n].every((v) => Number.isFinite(v))) return 'must be four numbers';
  if (w! < -180 || e! > 180 || w! > 180 || e! < -180) return 'west and east must be longitudes from -180 to 180';
  if (s! < -90 || n! > 90 || s! > 90 || n! < -90) return 'south and north must be latitudes from -90 to 90';
  if (w! > e!) return 'west must not be greater than east';
  if (s! > n!) return 'south must not be greater than north';
  return null;
}

/** `W,S,E,N` as text (REST's `bbox`, CKAN's `ext_bbox`, the web form) → the box. */
export const bboxText = z
  .string()
  .max(200)
  .regex(BBOX_TEXT, 'must be W,S,E,N: four numbers in degrees, such as -10.5,35,30,60')
  .transform((text, ctx) => {
    const box = text.split(',').map(Number) as Bbox;
    const problem = bboxProblem(box);
    if (problem) {
      ctx.issues.push({ code: 'custom', message: problem, input: text });
      return z.NEVER;
    }
    return box;
  })
  .describe('Datasets whose spatial coverage intersects this box: W,S,E,N in WGS 84 degrees');

/** A coverage date: ISO 8601 at any precision from the year. */
export const coverageDate = isoInstant.describe('ISO 8601 date or date-time, any precision from the year (2010, 2010-05, 2010-05-01)');

/** The instant a date text names, or null when it names a day the calendar lacks (2010-02-30). */
function instantOf(text: string, bound: 'start' | 'end'): Date | null {
  const at = bound === 'start' ? instantFloor(text) : instantCeiling(text);
  if (!Number.isFinite(at.getTime())) return null;
  const [date] = text.split(/[T ]/) as [string];
  const [y, m, d] = date.split('-').map(Number);
  // Date.parse rolls 2010-02-30 over to 2 March; the day it rolled to is not the day written.
  const floor = instantFloor(date);
  if (floor.getUTCFullYear() !== y || (m && floor.getUTCMonth() + 1 !== m) || (d && floor.getUTCDate() !== d)) return null;
  return at;
}

export interface CoverageFilter {
  bbox?: Bbox;
  /** The first instant of the wanted period, or null when open. */
  from: Date | null;
  /** The last instant of the wanted period, or null when open. */
  to: Date | null;
  temporal: boolean;
}

/** The names a caller's parameters have at its entry point (CKAN's ext_* differ from REST's). */
export interface CoverageParamNames {
  bbox: string;
  start: string;
  end: string;
}
export const REST_COVERAGE_NAMES: CoverageParamNames = { bbox: 'bbox', start: 'temporal_start', end: 'temporal_end' };

/**
 * The coverage part of a listing query, checked: a day that does not exist, an inverted box, or a period
 * that ends before it starts is a 400 naming the parameter, whichever entry point it came through.
 */
export function coverageFilter(
  query: { bbox?: readonly number[]; temporal_start?: string; temporal_end?: string },
  names: CoverageParamNames = REST_COVERAGE_NAMES,
): CoverageFilter {
  const errors: FieldError[] = [];
  const problem = query.bbox ? (query.bbox.length === 4 ? bboxProblem(query.bbox) : 'must be four numbers') : null;
  if (problem) errors.push({ path: names.bbox, message: problem });
  const read = (text: string | undefined, bound: 'start' | 'end', path: string) => {
    if (text === undefined) return null;
    const at = isoInstant.safeParse(text).success ? instantOf(text.trim(), bound) : null;
    if (!at) errors.push({ path, message: 'must be an ISO 8601 date or date-time of the calendar, such as 2010-01-31' });
    return at;
  };
  const from = read(query.temporal_start, 'start', names.start);
  const to = read(query.temporal_end, 'end', names.end);
  if (from && to && to < from) errors.push({ path: names.end, message: `must not be before ${names.start}` });
  if (errors.length) throw invalidParameters(errors, errors.map((e) => `${e.path} ${e.message}.`).join(' '));
  return {
    ...(query.bbox ? { bbox: [...query.bbox] as Bbox } : {}),
    from,
    to,
    temporal: query.temporal_start !== undefined || query.temporal_end !== undefined,
  };
}
