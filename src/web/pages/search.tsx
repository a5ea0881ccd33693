import { bboxText } from '../../domain/datasets/coverage-query.ts';
import type { DatasetListQuery } from '../../domain/datasets/list-query.ts';
import { invalidParameters } from '../../domain/errors.ts';
import { Layout, type PageFrame } from '../layout.tsx';
import { DatasetCard } from './dataset-card.tsx';
import type { DatasetPage } from './types.ts';

const FACETS = [
  ['organization', 'Organizations'],
  ['groups', 'Categories'],
  ['tags', 'Tags'],
  ['res_format', 'Formats'],
  ['license_id', 'Licenses'],
  ['theme', 'Themes'],
  ['access_level', 'Access levels'],
  ['frequency', 'Update frequencies'],
  ['language', 'Languages'],
  ['publisher', 'Publishers'],
] as const;

export type FacetKey = (typeof FACETS)[number][0];

/** The coverage fields of the form, as typed (checked when the search runs). */
const COVERAGE = ['bbox', 'temporal_start', 'temporal_end'] as const;
type CoverageKey = (typeof COVERAGE)[number];

export interface SearchState {
  q: string;
  filters: Record<FacetKey, string[]>;
  coverage: Partial<Record<CoverageKey, string>>;
  offset: number;
  limit: number;
}

/** The search page's state from its URL (values capped as the API caps them). */
export function searchStateOf(params: URLSearchParams, limit: number): SearchState {
  const filters = Object.fromEntries(FACET_KEYS.map((key) => [key, params.getAll(key).filter(Boolean).slice(0, 50)])) as Record<
    FacetKey,
    string[]
  >;
  const coverage = Object.fromEntries(
    COVERAGE.flatMap((key) => {
      const value = params.get(key)?.trim();
      return value ? [[key, value.slice(0, 200)]] : [];
    }),
  );
  const offset = Math.max(0, Math.min(Number.parseInt(params.get('offset') ?? '0', 10) || 0, 10_000));
  return { q: (params.get('q') ?? '').trim().slice(0, 500), filters, coverage, offset, limit };
}

/** The listing's filters for a state; a box that is not one is a 400 naming `bbox` (dates: the listing checks them). */
export function searchFilters(state: SearchState): Partial<DatasetListQuery> {
  const { bbox, temporal_start, temporal_end } = state.coverage;
  const box = bbox === undefined ? undefined : bboxText.safeParse(bbox);
  if (box && !box.success) {
    const message = box.error.issues[0]?.message ?? 'is not a box';
    throw invalidParameters([{ path: 'bbox', message }], `bbox ${message}.`);
  }
  return {
    ...Object.fromEntries(FACET_KEYS.filter((key) => state.filters[key].length).map((key) => [key, state.filters[key]])),
    ...(box?.success ? { bbox: box.data } : {}),
    ...(temporal_start ? { temporal_start } : {}),
    ...(temporal_end ? { temporal_end } : {}),
  };
}

/** The search page's URL for a state: every filter is in the URL, so a result page can be shared. */
export function searchUrl(state: SearchState, path = '/dataset') {
  const params = new URLSearchParams();
  if (state.q) params.set('q', state.q);
  for (const [key] of FACETS) for (const value of state.filters[key]) params.append(key, value);
  for (const key of COVERAGE) if (state.coverage[key]) params.set(key, state.coverage[key]);
  if (state.offset) params.set('offset', String(state.offset));
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

const toggled = (state: SearchState, key: FacetKey, value: string): SearchState => {
  const current = state.filters[key];
  const next = current.includes(value) ? current.filter((v) => v !== value) : [...current, value];
  return { ...state, offset: 0, filters: { ...state.filters, [key]: next } };
};

/** GET /dataset: results with facets, filters in the URL, paging, and why each hit matched. */
export function SearchPage(props: { frame: PageFrame; state: SearchState; page: DatasetPage }) {
  const { state, page } = props;
  const json = searchUrl(state, '/api/v1/packages');
  const last = Math.min(page.offset + page.results.length, page.count);
  const heading = state.q ? `Datasets matching “${state.q}”` : 'Datasets';
  return (
    <Layout frame={{ ...props.frame, q: state.q }} title={heading} json={json}>
      <h1>{heading}</h1>
      <div class="search-layout">
        <aside aria-label="Filters" class="facets">
          <CoverageForm state={state} />
          {FACETS.map(([key, label]) => {
            const values = page.facets?.[key] ?? [];
            if (values.length === 0) return null;
            return (
              <section>
                <h2>{label}</h2>
                <ul>
                  {values.map((v) => {
                    const active = state.filters[key].includes(v.name);
                    return (
                      <li>
                        <a
                          href={searchUrl(toggled(state, key, v.name))}
                          aria-current={active ? 'true' : undefined}
                          class={active ? 'active' : undefined}
                        >
                          {v.title || v.name} <span class="count">{v.count}</span>
                        </a>
                      </li>
                    );
                  })}
                </ul>
              </section>
            );
          })}
        </aside>
        <section aria-label="Results" class="results">
          <p class="summary" role="status">
            {page.count === 0 ? 'No dataset matches.' : `${page.offset + 1}–${last} of ${page.count} dataset${page.count === 1 ? '' : 's'}`}
            {page.meta?.semantic === 'on' && ' · keywords and meaning'}
          </p>
          <ol class="dataset-list">
            {page.results.map((d) => (
              <DatasetCard dataset={d} />
            ))}
          </ol>
          <nav aria-label="Pages" class="pager">
            {page.offset > 0 && (
              <a rel="prev" href={searchUrl({ ...state, offset: Math.max(0, page.offset - page.limit) })}>
                ← Previous
              </a>
            )}
            {last < page.count && (
              <a rel="next" href={searchUrl({ ...state, offset: page.offset + page.limit })}>
                Next →
              </a>
            )}
          </nav>
        </section>
      </div>
    </Layout>
  );
}

/** Where and when the data is about: a GET form that keeps the query and the chosen facets. */
function CoverageForm({ state }: { state: SearchState }) {
  return (
    <section>
      <h2>Coverage</h2>
      <form action="/dataset" method="get" class="coverage-form">
        {state.q && <input type="hidden" name="q" value={state.q} />}
        {FACETS.flatMap(([key]) => state.filters[key].map((value) => <input type="hidden" name={key} value={value} />))}
        <label for="cov-bbox">Area (W,S,E,N in degrees)</label>
        <input id="cov-bbox" name="bbox" value={state.coverage.bbox ?? ''} placeholder="-10.5,35,30,60" inputmode="decimal" />
        <label for="cov-start">From (date)</label>
        <input id="cov-start" name="temporal_start" value={state.coverage.temporal_start ?? ''} placeholder="2010" />
        <label for="cov-end">To (date)</label>
        <input id="cov-end" name="temporal_end" value={state.coverage.temporal_end ?? ''} placeholder="2020-12-31" />
        <button type="submit">Filter</button>
      </form>
    </section>
  );
}

export const FACET_KEYS = FACETS.map(([key]) => key);
