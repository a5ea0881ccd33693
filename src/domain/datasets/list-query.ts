/** GET /packages's query, as the listing (list.ts) and the search under it (search.ts) both read it. */
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
  sort_by?: 'updated' | 'created' | 'name';
  sort_order?: 'asc' | 'desc';
  include_facets?: boolean;
}
