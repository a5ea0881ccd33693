import type { getGroup } from '../../domain/groups/groups.ts';
import { Layout, type PageFrame } from '../layout.tsx';
import { DatasetCard } from './dataset-card.tsx';
import { GroupList, type GroupPage } from './home.tsx';
import type { DatasetPage } from './types.ts';

type Kind = 'organization' | 'group';
const LABELS = { organization: ['Organization', 'Organizations'], group: ['Category', 'Categories'] } as const;
const API = { organization: '/api/v1/organizations', group: '/api/v1/groups' } as const;

/** GET /organization and /group: every one, with how many datasets the caller may see in each. */
export function GroupsPage(props: { frame: PageFrame; kind: Kind; groups: GroupPage }) {
  const [, plural] = LABELS[props.kind];
  return (
    <Layout frame={props.frame} title={plural} json={API[props.kind]}>
      <h1>{plural}</h1>
      {props.groups.count === 0 ? <p class="muted">None yet.</p> : <GroupList groups={props.groups.results} base={`/${props.kind}`} />}
    </Layout>
  );
}

/** GET /organization/{name} and /group/{name}: who they are, and their datasets. */
export function GroupPageView(props: {
  frame: PageFrame;
  kind: Kind;
  group: Awaited<ReturnType<typeof getGroup>>;
  datasets: DatasetPage;
  filter: string;
}) {
  const { group, datasets } = props;
  const [singular, plural] = LABELS[props.kind];
  const title = group.title || group.name;
  return (
    <Layout frame={props.frame} title={title} json={`${API[props.kind]}/${encodeURIComponent(group.name)}`}>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href={`/${props.kind}`}>{plural}</a>
      </nav>
      <h1>{title}</h1>
      <p class="muted">{singular}</p>
      {group.description && <p>{group.description}</p>}
      <h2>{`${datasets.count} dataset${datasets.count === 1 ? '' : 's'}`}</h2>
      <ol class="dataset-list">
        {datasets.results.map((d) => (
          <DatasetCard dataset={d} />
        ))}
      </ol>
      {datasets.count > datasets.results.length && (
        <a href={`/dataset?${props.filter}=${encodeURIComponent(group.name)}`}>All of them, with filters →</a>
      )}
    </Layout>
  );
}
