/** GET /packages's query, as the listing (list-ids.ts) and the search under it (search.ts) both read it. */
export interface DatasetListQuery {
  q?: string;
  semantic?: boolean;
  offset: number;
  limit: number;
  organization?: string[];
  groups?: string[];
  tags?: string[];
  res_format?: string[];
  license_id?: string[];
  creator_user_id?: string;
  name?: string;
  state?: 'active' | 'deleted' | 'draft';
  my_org?: boolean;
  private?: boolean;
  sort_by?: 'updated' | 'created' | 'name' | 'title' | 'id';
  sort_order?: 'asc' | 'desc';
  include_facets?: boolean;
  /** Rows per facet (50 when absent). */
  facet_limit?: number;
  /** Updated at or after this instant (inclusive): incremental harvesting. */
  modified_since?: Date;
  /** Updated strictly before this instant (exclusive). */
  modified_before?: Date;
  /** Further bounds on the two timestamps, for the range forms the two fields above do not express. */
  time_bounds?: TimeBound[];
  /** Exact dataset names, any of them (`name` above is a "contains" search). */
  names?: string[];
  /** Exact dataset ids, any of them. */
  ids?: string[];
  /** Datasets that match any of these are left out (negated filters); within a key, any value excludes. */
  exclude?: DatasetExclusions;
  /** Record filters (metadata-filters.ts): a theme's IRI or label, an access level, a frequency, a language, a publisher's name. */
  theme?: string[];
  access_level?: string[];
  frequency?: string[];
  language?: string[];
  publisher?: string[];
  /** Spatial coverage intersects this box: [west, south, east, north] in degrees. */
  bbox?: readonly number[];
  /** Temporal coverage overlaps the period from this date (ISO 8601, any precision); open when absent. */
  temporal_start?: string;
  /** … to this date, its last instant included; open when absent. */
  temporal_end?: string;
}

/** One bound on `updatedAt` ("updated") or `createdAt` ("created"). */
export interface TimeBound {
  field: 'updated' | 'created';
  op: 'gte' | 'gt' | 'lte' | 'lt';
  at: Date;
}

export interface DatasetExclusions {
  organization?: string[];
  groups?: string[];
  tags?: string[];
  res_format?: string[];
  license_id?: string[];
  names?: string[];
  ids?: string[];
}

/** Keys that shape the answer (its page, order and parts) or widen what is visible, never narrowing it. */
const NOT_NARROWING = new Set<keyof DatasetListQuery>([
  'semantic',
  'offset',
  'limit',
  'state',
  'private',
  'sort_by',
  'sort_order',
  'include_facets',
  'facet_limit',
]);

/** True when the query narrows the active listing beyond visibility: words or any filter. */
export function narrowsListing(query: DatasetListQuery): boolean {
  return (Object.keys(query) as Array<keyof DatasetListQuery>).some((key) => {
    const value = query[key];
    if (value === undefined || NOT_NARROWING.has(key)) return false;
    return key !== 'q' || String(value).trim() !== '';
  });
}
