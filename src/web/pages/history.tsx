import type { datasetActivity } from '../../domain/activity/history.ts';
import type { getDataset } from '../../domain/datasets/lifecycle.ts';
import { Layout, type PageFrame } from '../layout.tsx';

type Dataset = Awaited<ReturnType<typeof getDataset>>;
type History = Awaited<ReturnType<typeof datasetActivity>>;

const VERBS: Record<string, string> = {
  created: 'Created',
  changed: 'Changed',
  published: 'Published',
  deleted: 'Deleted',
  restored: 'Restored',
  purged: 'Purged',
};

/** A value as a cell shows it: text as it is, anything else as JSON, nothing as a dash. */
const shown = (value: unknown) => (value === null || value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value));

/**
 * GET /dataset/:name/history: the dataset's timeline, newest first, each change with who made it and
 * its field-by-field diff, as far as the reader could see each period (the API's rule, issue 30 §1).
 */
export function HistoryPage(props: { frame: PageFrame; dataset: Dataset; history: History }) {
  const d = props.dataset;
  const title = d.title || d.name;
  const base = `/dataset/${encodeURIComponent(d.name)}`;
  return (
    <Layout frame={props.frame} title={`History of ${title}`} json={`/api/v1/packages/${encodeURIComponent(d.name)}/activity`}>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href="/dataset">Datasets</a>
        {' / '}
        <a href={base}>{title}</a>
      </nav>
      <h1>History</h1>
      {props.history.results.length === 0 ? (
        <p class="muted">No changes you may see.</p>
      ) : (
        <ol class="history">
          {props.history.results.map((a) => (
            <li class="activity" id={`activity-${a.id}`}>
              <p>
                <strong>{VERBS[a.action] ?? a.action}</strong>{' '}
                <time datetime={a.createdAt}>{a.createdAt.replace('T', ' ').slice(0, 19)} UTC</time>
                {a.harvestRunId ? ' by a harvest run' : a.userId ? '' : ' by the system'}
                {' · '}
                <a href={`/api/v1/packages/${encodeURIComponent(d.id)}?version=${a.id}`}>the record then</a>
              </p>
              {(a.changes ?? []).length > 0 && (
                <table class="diff">
                  <thead>
                    <tr>
                      <th scope="col">Field</th>
                      <th scope="col">Before</th>
                      <th scope="col">After</th>
                    </tr>
                  </thead>
                  <tbody>
                    {(a.changes ?? []).map((c) => (
                      <tr>
                        <th scope="row">{c.path}</th>
                        <td>{shown(c.before)}</td>
                        <td>{shown(c.after)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </li>
          ))}
        </ol>
      )}
    </Layout>
  );
}
