import { Layout, type PageFrame } from '../layout.tsx';
import { DatasetCard } from './dataset-card.tsx';
import type { DatasetPage } from './types.ts';

const FACETS = [
  ['organization', 'Organizations'],
  ['groups', 'Categories'],
  ['tags', 'Tags'],
  ['res_format', 'Formats'],
  ['license_id', 'Licenses'],
] as const;

export type FacetKey = (typeof FACETS)[number][0];

export interface SearchState {
  q: string;
  filters: Record<FacetKey, string[]>;
  offset: number;
  limit: number;
}

/** The search page's URL for a state: every filter is in the URL, so a result page can be shared. */
export function searchUrl(state: SearchState, path = '/dataset') {
  const params = new URLSearchParams();
  if (state.q) params.set('q', state.q);
  for (const [key] of FACETS) for (const value of state.filters[key]) params.append(key, value);
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

export const FACET_KEYS = FACETS.map(([key]) => key);
