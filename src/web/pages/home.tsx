import type { listGroups } from '../../domain/groups/groups.ts';
import { Layout, type PageFrame } from '../layout.tsx';
import { DatasetCard } from './dataset-card.tsx';
import type { DatasetPage } from './types.ts';

export type GroupPage = Awaited<ReturnType<typeof listGroups>>;

export function GroupList(props: { groups: GroupPage['results']; base: '/organization' | '/group' }) {
  return (
    <ul class="groups">
      {props.groups.map((g) => (
        <li>
          <a href={`${props.base}/${encodeURIComponent(g.name)}`}>{g.title || g.name}</a> <span class="count">{g.packageCount}</span>
        </li>
      ))}
    </ul>
  );
}

/** GET /: a search box first, then what the catalog holds. */
export function HomePage(props: { frame: PageFrame; recent: DatasetPage; organizations: GroupPage; categories: GroupPage }) {
  const { recent, organizations, categories } = props;
  return (
    <Layout frame={props.frame} title="Home" json="/api/v1/packages">
      <section class="hero" aria-labelledby="home-heading">
        <h1 id="home-heading">Find data</h1>
        <form role="search" action="/dataset" method="get" class="big-search">
          <label for="home-q">Search by keywords or describe what you need</label>
          <input id="home-q" type="search" name="q" placeholder="e.g. hospital readmissions by state" />
          <button type="submit">Search</button>
        </form>
        <p class="counts">
          {`${recent.count} dataset${recent.count === 1 ? '' : 's'} from ${organizations.count} organization${organizations.count === 1 ? '' : 's'}`}
        </p>
      </section>
      <div class="home-columns">
        <section aria-labelledby="recent-heading">
          <h2 id="recent-heading">Recently updated</h2>
          <ol class="dataset-list">
            {recent.results.map((d) => (
              <DatasetCard dataset={d} />
            ))}
          </ol>
          <a href="/dataset">All datasets →</a>
        </section>
        <div>
          <section aria-labelledby="orgs-heading">
            <h2 id="orgs-heading">Organizations</h2>
            <GroupList groups={organizations.results} base="/organization" />
          </section>
          {categories.count > 0 && (
            <section aria-labelledby="categories-heading">
              <h2 id="categories-heading">Categories</h2>
              <GroupList groups={categories.results} base="/group" />
            </section>
          )}
        </div>
      </div>
    </Layout>
  );
}
