import { catalogDatasetNames, searchCatalog, showCatalogDataset } from '../../../domain/catalog/datasets.ts';
import type { DatasetListQuery } from '../../../domain/datasets/list-query.ts';
import { unsupportedFilter } from '../../../domain/errors.ts';
import { packageDict } from '../package-dict.ts';
import { readCoverageParams } from '../coverage-params.ts';
import { MAX_OFFSET } from '../params.ts';
import { parseSearch } from '../solr-query.ts';
import { packageAtActivity } from './activity.ts';
import { required, type Action } from './action.ts';

/** package_search, package_show, package_list. */

const DEFAULT_SORT = 'score desc, metadata_modified desc';
const MAX_ROWS = 1000;
/** Rows per facet at most (facet.limit above it, or -1 for "all", is capped here). */
const MAX_FACET_LIMIT = 1000;
/** Facet fields the listing counts. */
const FACET_FIELDS = [
  'organization',
  'groups',
  'tags',
  'res_format',
  'license_id',
  'theme',
  'access_level',
  'frequency',
  'language',
  'publisher',
] as const;
type FacetField = (typeof FACET_FIELDS)[number];
const SORT_FIELDS: Record<string, NonNullable<DatasetListQuery['sort_by']>> = {
  metadata_modified: 'updated',
  metadata_created: 'created',
  name: 'name',
  id: 'id',
  // CKAN's sortable copy of the title (its UI's "Name Ascending/Descending").
  title_string: 'title',
};
/** Sort keys that never tie: whatever follows them cannot change the order. */
const UNIQUE_SORTS = new Set(['name', 'id']);

const sortError = (sort: string, why: string) => unsupportedFilter(`sort "${sort}": ${why}`, [{ path: 'sort', message: why }]);

/**
 * CKAN's `sort`, as the listing's one column (ties broken by id). `score` is relevance when there are
 * words to search for and no order otherwise; a second key is accepted only where it could not matter.
 */
function parseSort(sort: string, hasText: boolean): Pick<DatasetListQuery, 'sort_by' | 'sort_order'> {
  const keys = sort
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
    .map((k) => {
      const m = /^([a-z_]+)(?:\s+(asc|desc))?$/i.exec(k);
      if (!m) throw sortError(sort, `cannot read "${k}"`);
      const field = m[1].toLowerCase();
      if (field !== 'score' && !SORT_FIELDS[field]) throw sortError(sort, `sorting by ${field} is not supported`);
      return { field, order: (m[2]?.toLowerCase() ?? 'asc') as 'asc' | 'desc' };
    });
  for (const [i, key] of keys.entries()) {
    if (key.field === 'score') {
      if (hasText) return {};
      continue;
    }
    const rest = keys.slice(i + 1);
    if (rest.length && !UNIQUE_SORTS.has(key.field)) {
      throw sortError(sort, `only one sort key (besides score) is supported unless the first is name or id`);
    }
    return { sort_by: SORT_FIELDS[key.field], sort_order: key.order };
  }
  return { sort_by: 'updated', sort_order: 'desc' };
}

export const packageSearch: Action = {
  help:
    'Searches the active datasets: q, fq, fq_list, rows (max 1000), start, sort, facet.field, facet.limit, facet.mincount, include_private, ' +
    'ext_bbox (W,S,E,N), ext_startdate and ext_enddate (temporal coverage overlap).',
  async run({ domain, actor, params }) {
    const q = params.string('q');
    // A repeated fq (or a list of them in a POST) is ANDed, like fq_list: none is dropped.
    const fqs = [...(params.list('fq') ?? []), ...(params.list('fq_list', { jsonText: true }) ?? [])].filter(Boolean);
    const rows = params.int('rows', { min: 0, max: MAX_ROWS, clampMax: true }) ?? 10;
    const start = params.int('start', { min: 0, max: MAX_OFFSET }) ?? 0;
    const sort = params.string('sort')?.trim() || DEFAULT_SORT;
    const facetFields = params.list('facet.field', { jsonText: true }) ?? [];
    const facetLimit = params.int('facet.limit', { min: -1, max: MAX_FACET_LIMIT, clampMax: true }) ?? 50;
    const facetMincount = params.int('facet.mincount', { min: 0 }) ?? 1;
    const includePrivate = params.bool('include_private') ?? false;
    const coverage = readCoverageParams(params);
    const unknownFacet = facetFields.find((f) => !(FACET_FIELDS as readonly string[]).includes(f));
    if (unknownFacet) {
      throw unsupportedFilter(`Facets on "${unknownFacet}" are not supported; supported: ${FACET_FIELDS.join(', ')}`, [
        { path: 'facet.field', message: `${unknownFacet} is not a supported facet` },
      ]);
    }

    const parsed = parseSearch(q, fqs);
    const query: DatasetListQuery = {
      ...parsed.filters,
      ...coverage,
      ...(parsed.text ? { q: parsed.text } : {}),
      ...parseSort(sort, !!parsed.text),
      offset: start,
      // A page of none still counts (and facets) the whole result.
      limit: Math.max(rows, 1),
      private: includePrivate,
      ...(facetFields.length ? { include_facets: true, facet_limit: facetLimit < 0 ? MAX_FACET_LIMIT : facetLimit } : {}),
    };
    const found = await searchCatalog(domain, actor, query);
    const facets: Record<string, Record<string, number>> = {};
    const searchFacets: Record<string, { title: string; items: Array<{ name: string; display_name: string; count: number }> }> = {};
    for (const field of facetFields as FacetField[]) {
      const rowsOf = (found.facets?.[field] ?? []).filter((f) => f.count >= facetMincount);
      facets[field] = Object.fromEntries(rowsOf.map((f) => [f.name, f.count]));
      searchFacets[field] = {
        title: field,
        items: rowsOf.map((f) => ({ name: f.name, display_name: ('title' in f && f.title) || f.name, count: f.count })),
      };
    }
    return {
      count: found.count,
      sort,
      facets,
      search_facets: searchFacets,
      results: found.datasets.slice(0, rows).map(packageDict),
    };
  },
};

export const packageShow: Action = {
  help: 'One active dataset, by name or id, with its resources: package_show id=<name or id>; activity_id=<id> gives it as that change left it.',
  async run(call) {
    const { domain, actor, params } = call;
    const id = required(params, 'id', 'name_or_id');
    const activityId = params.string('activity_id');
    if (activityId) return packageAtActivity(call, id, activityId);
    return packageDict(await showCatalogDataset(domain, actor, id));
  },
};

export const packageList: Action = {
  help: 'Names of the public active datasets, by name; limit and offset page them.',
  async run({ domain, actor, params }) {
    const limit = params.int('limit', { min: 0, max: 1_000_000, clampMax: true });
    const offset = params.int('offset', { min: 0, max: MAX_OFFSET }) ?? 0;
    params.check();
    if (limit === 0) return [];
    return catalogDatasetNames(domain, actor, { offset, limit: limit ?? 1_000_000 });
  },
};
