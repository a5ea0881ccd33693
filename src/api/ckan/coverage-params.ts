import { bboxText, coverageDate, coverageFilter } from '../../domain/datasets/coverage-query.ts';
import type { DatasetListQuery } from '../../domain/datasets/list-query.ts';
import { invalidParameters, type FieldError } from '../../domain/errors.ts';
import type { ActionParams } from './params.ts';

/** package_search's coverage parameters, as CKAN clients name them. */
const NAMES = { bbox: 'ext_bbox', start: 'ext_startdate', end: 'ext_enddate' };

/**
 * `ext_bbox=W,S,E,N` as ckanext-spatial takes it (any intersection, its default), and `ext_startdate` /
 * `ext_enddate` for the temporal overlap (either may be open; the names some CKAN portals' temporal
 * search uses). A bad value is a Validation Error naming the parameter, before anything is searched.
 */
export function readCoverageParams(params: ActionParams): Pick<DatasetListQuery, 'bbox' | 'temporal_start' | 'temporal_end'> {
  const given = (key: string) => {
    const value = params.string(key);
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const [bbox, start, end] = [given(NAMES.bbox), given(NAMES.start), given(NAMES.end)];
  params.check();
  const errors: FieldError[] = [];
  const read = <T>(
    value: string | undefined,
    path: string,
    schema: { safeParse(v: string): { success: boolean; data?: T; error?: { issues: Array<{ message: string }> } } },
  ) => {
    if (value === undefined) return undefined;
    const parsed = schema.safeParse(value);
    if (!parsed.success) errors.push({ path, message: parsed.error?.issues[0]?.message ?? 'is invalid' });
    return parsed.data;
  };
  const query = {
    bbox: read(bbox, NAMES.bbox, bboxText),
    temporal_start: read(start, NAMES.start, coverageDate),
    temporal_end: read(end, NAMES.end, coverageDate),
  };
  if (errors.length) throw invalidParameters(errors);
  const set = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined)) as typeof query;
  // The period's order and calendar days, checked under the names this caller used.
  coverageFilter(set, NAMES);
  return set;
}
