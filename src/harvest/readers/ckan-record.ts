import {
  CKAN_PACKAGE_KEYS,
  CKAN_RESOURCE_KEYS,
  DATASET_RECORD_CKAN_KEYS,
  DISTRIBUTION_RECORD_CKAN_KEYS,
} from '../../api/ckan/record-dict.ts';
import { DATASET_RECORD, type RecordTable } from '../../domain/metadata/dataset-record.ts';
import { DISTRIBUTION_RECORD } from '../../domain/metadata/distribution-record.ts';
import { extraText, withExtras, type Extra } from '../../domain/metadata/extras.ts';
import { list, object } from '../values.ts';

/**
 * The metadata of a CKAN package dict, as a scheming site (ckanext-dcat's DCAT-AP schema, Almanac's own
 * dicts) gives it: the record's keys under their CKAN names, `extras` as they come, and every other
 * top-level key, a scheming site's own field, as a profile value. Values go to the record as given; the
 * domain checks each and keeps what does not fit in the extras, so nothing is lost.
 */

/**
 * Extras that say where the source itself harvested the dataset from (Almanac's dicts and
 * ckanext-harvest's): the harvest here has its own, and would otherwise show the source's as if they were
 * the dataset's.
 */
export const HARVEST_PROVENANCE_KEYS: ReadonlySet<string> = new Set([
  'harvest_source_id',
  'harvest_remote_id',
  'harvest_remote_url',
  'harvested_at',
  'harvest_object_id',
  'harvest_source_title',
]);

/** CKAN's extra values are text; anything else a site sends is kept as its JSON. */
/** `extras` of a dict: [{key, value}] in order, a key given twice kept once (its first value). */
export function ckanExtras(value: unknown, skip: ReadonlySet<string> = new Set()): Extra[] {
  const pairs = list(value).flatMap((v) => {
    const pair = object(v);
    const key = pair?.key;
    return typeof key === 'string' && key && !skip.has(key) ? [{ key, value: extraText(pair!.value) }] : [];
  });
  return withExtras([], pairs);
}

const parsedJson = (value: unknown): unknown => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
};

/** A GeoJSON Point's position, or a box Polygon's [W, S, E, N] (ckanext-dcat writes both as GeoJSON text). */
const pointOf = (g: unknown) => {
  const p = object(g);
  return p?.type === 'Point' && Array.isArray(p.coordinates) ? p.coordinates.slice(0, 2) : g;
};
const boxOf = (g: unknown) => {
  const p = object(g);
  const ring = p?.type === 'Polygon' && Array.isArray(p.coordinates) ? (p.coordinates[0] as number[][]) : null;
  if (!ring?.every((pos) => Array.isArray(pos) && pos.every((n) => typeof n === 'number'))) return g;
  const lons = ring.map((pos) => pos[0]!);
  const lats = ring.map((pos) => pos[1]!);
  return [Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)];
};

/**
 * ckanext-dcat's scheming shapes in Almanac's: an agent as a one-item list, a place's `text` and its
 * geometry, bbox and centroid as GeoJSON text. Used only when the result is a valid record value (else
 * the value goes on as the source wrote it, and the domain keeps it in the extras), and only for an item
 * whose every key has a place, so nothing is dropped on the way.
 */
const SCHEMING_SHAPES: Record<string, (value: unknown) => unknown> = {
  publisher: (v) => (Array.isArray(v) && v.length === 1 ? v[0] : v),
  creator: (v) => (Array.isArray(v) && v.length === 1 ? v[0] : v),
  spatial: (v) =>
    Array.isArray(v)
      ? v.map((item) => {
          const p = object(item);
          const keys = Object.keys(p ?? {});
          const known = keys.every((k) => ['uri', 'text', 'name', 'geom', 'geometry', 'bbox', 'centroid'].includes(k));
          // Two names (or two geometries) for one place would lose one: left as written.
          if (!p || !known || ('text' in p && 'name' in p) || ('geom' in p && 'geometry' in p)) return item;
          const { text, geom, ...rest } = p;
          return Object.fromEntries(
            Object.entries({
              ...rest,
              name: rest.name ?? text,
              geometry: rest.geometry ?? parsedJson(geom),
              bbox: typeof rest.bbox === 'string' ? boxOf(parsedJson(rest.bbox)) : rest.bbox,
              centroid: typeof rest.centroid === 'string' ? pointOf(parsedJson(rest.centroid)) : rest.centroid,
            }).filter(([, x]) => x !== undefined && x !== null && x !== ''),
          );
        })
      : v,
};

/** The record's values of a dict, by the record's keys (null and absent alike left out). */
function recordValues(table: RecordTable, dict: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(table).flatMap(([key, field]) => {
      const value = dict[field.ckan];
      if (value === undefined || value === null) return [];
      const adapt = table === DATASET_RECORD ? SCHEMING_SHAPES[key] : undefined;
      const adapted = adapt && !field.schema.safeParse(value).success ? adapt(value) : value;
      return [[key, field.schema.safeParse(adapted).success ? adapted : value]];
    }),
  );
}

/** The keys that are neither CKAN's own nor the record's. */
const otherEntries = (dict: Record<string, unknown>, known: ReadonlySet<string>, record: ReadonlySet<string>) =>
  Object.entries(dict).filter(([key, value]) => !known.has(key) && !record.has(key) && value !== undefined);

export function ckanDatasetMetadata(dict: Record<string, unknown>) {
  return {
    metadata: recordValues(DATASET_RECORD, dict),
    extras: ckanExtras(dict.extras, HARVEST_PROVENANCE_KEYS),
    customFields: Object.fromEntries(otherEntries(dict, CKAN_PACKAGE_KEYS, DATASET_RECORD_CKAN_KEYS)),
  };
}

/**
 * A resource's: its record, and every other top-level key as a free extra (CKAN flattens resource extras
 * into the dict, and a harvested resource has no profile values of its own), text as is, else its JSON.
 */
export function ckanResourceMetadata(dict: Record<string, unknown>) {
  return {
    metadata: recordValues(DISTRIBUTION_RECORD, dict),
    customExtras: withExtras(
      [],
      otherEntries(dict, CKAN_RESOURCE_KEYS, DISTRIBUTION_RECORD_CKAN_KEYS).map(([key, value]) => ({ key, value: extraText(value) })),
    ),
  };
}
