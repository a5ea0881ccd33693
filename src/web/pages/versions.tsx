import type { compareVersions, listVersions } from '../../domain/resources/versions.ts';
import type { PendingVersionNote } from '../../domain/pipeline/version-record.ts';
import type { SchemaChange } from '../../domain/pipeline/schema-diff.ts';
import { Layout, type PageFrame } from '../layout.tsx';
import type { DatasetDetail } from './types.ts';

type Versions = Awaited<ReturnType<typeof listVersions>>;
type Change = Pick<SchemaChange, 'kind' | 'column' | 'impact'> & { previousName?: string; previousType?: string; type?: string };

const changeText = (c: Change) => {
  switch (c.kind) {
    case 'renamed':
      return `${c.previousName} renamed ${c.column}`;
    case 'retyped':
      return `${c.column}: ${c.previousType} → ${c.type}`;
    case 'nullsAppeared':
      return `${c.column}: empty values appeared`;
    default:
      return `${c.column} ${c.kind}`;
  }
};

/** Breaking changes first, each marked. */
function Changes(props: { changes: readonly Change[] }) {
  const changes = [...props.changes].sort((a, b) => (a.impact === b.impact ? 0 : a.impact === 'breaking' ? -1 : 1));
  if (changes.length === 0) return <>none</>;
  return (
    <>
      {changes.map((c) => (
        <span class={c.impact === 'breaking' ? 'change breaking' : 'change'}>{changeText(c)}</span>
      ))}
    </>
  );
}

const REVIEW_BADGES: Record<string, string> = {
  pending: 'Waiting for review',
  accepted: 'Accepted',
  declined: 'Declined',
  superseded: 'Superseded',
};

/**
 * A version held for a breaking schema change (issue 30 §3), at the top of its resource's page: what it
 * changes, that the version before is still served, and for the resource's editors, the two answers.
 */
export function PendingVersionNotice(props: {
  base: string;
  resourceId: string;
  held: PendingVersionNote;
  editable: boolean;
  csrf: string;
}) {
  const { held } = props;
  const decide = (decision: 'accept' | 'decline', label: string, secondary: boolean) => (
    <form method="post" action={`${props.base}/versions/${held.version}/${decision}`} class="inline">
      <input type="hidden" name="_csrf" value={props.csrf} />
      <button type="submit" class={secondary ? 'button secondary' : 'button'}>
        {label}
      </button>
    </form>
  );
  return (
    <section class="notice pending-version" aria-labelledby="pending-heading">
      <h2 id="pending-heading">{`Version ${held.version} is waiting for review`}</h2>
      <p>
        {`Its columns change in a way that can break scripts reading this data, so the version before it is still served. `}
        <a href={`/api/v1/resources/${props.resourceId}/versions/${held.version}/download`}>{`Download version ${held.version}`}</a>
        {` or query it as version_${held.version} to try it first.`}
      </p>
      <p class="versions">
        <Changes changes={held.schemaChanges.changes} />
      </p>
      {props.editable && (
        <p class="actions">
          {decide('accept', `Serve version ${held.version}`, false)}
          {decide('decline', 'Keep the current version', true)}
        </p>
      )}
    </section>
  );
}

/**
 * A resource's data versions on its page (issue 30 §2–3): each file it served or held, newest first, with
 * its rows and what its columns changed against the version served before it, breaking changes first; and
 * a form to compare any two.
 */
export function VersionsSection(props: { base: string; resourceId: string; versions: Versions }) {
  const { resourceId, versions } = props;
  if (versions.results.length === 0) return null;
  const numbers = versions.results.map((v) => v.version);
  return (
    <section aria-labelledby="versions-heading">
      <h2 id="versions-heading">Versions</h2>
      <table class="versions">
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Made</th>
            <th scope="col">Rows</th>
            <th scope="col">Columns changed</th>
          </tr>
        </thead>
        <tbody>
          {versions.results.map((v) => (
            // The anchor the DCAT feeds name the version by (src/feeds/dcat-versions.ts).
            <tr id={`version-${v.version}`}>
              <th scope="row">
                <a href={`/api/v1/resources/${resourceId}/versions/${v.version}/download`}>{`v${v.version}`}</a>
                {v.current && <span class="badge">Current</span>}
                {v.review && v.review !== 'accepted' && <span class={`badge review-${v.review}`}>{REVIEW_BADGES[v.review]}</span>}
              </th>
              <td>
                <time datetime={v.createdAt}>{v.createdAt.slice(0, 10)}</time>
              </td>
              <td>{v.rowCount ?? '—'}</td>
              <td>{v.schemaChanges === null ? '—' : <Changes changes={v.schemaChanges.changes} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {numbers.length > 1 && (
        <form method="get" action={`${props.base}/versions/compare`} class="inline compare-versions">
          <label>
            {'Compare version '}
            <select name="from">
              {numbers.map((n) => (
                <option value={String(n)} selected={n === numbers.at(-1)}>{`v${n}`}</option>
              ))}
            </select>
          </label>
          <label>
            {' with '}
            <select name="to">
              {numbers.map((n) => (
                <option value={String(n)} selected={n === numbers[0]}>{`v${n}`}</option>
              ))}
            </select>
          </label>{' '}
          <button type="submit" class="button secondary">
            Compare columns
          </button>
        </form>
      )}
    </section>
  );
}

/** GET /dataset/{name}/resource/{id}/versions/compare?from=m&to=n: the columns of version n against version m. */
export function CompareVersionsPage(props: {
  frame: PageFrame;
  dataset: DatasetDetail;
  resourceName: string;
  base: string;
  comparison: Awaited<ReturnType<typeof compareVersions>>;
}) {
  const { comparison: c, dataset } = props;
  return (
    <Layout
      frame={props.frame}
      title={`Columns of v${c.version} against v${c.from} · ${props.resourceName}`}
      json={`/api/v1/resources/${c.resourceId}/versions/${c.version}/schema-changes?from=${c.from}`}
    >
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href="/dataset">Datasets</a> / <a href={`/dataset/${encodeURIComponent(dataset.name)}`}>{dataset.title || dataset.name}</a> /{' '}
        <a href={props.base}>{props.resourceName}</a>
      </nav>
      <h1>{`Columns of version ${c.version} against version ${c.from}`}</h1>
      <p>
        {c.breaking
          ? 'A script written against the first can break on the second.'
          : 'Nothing here breaks a script written against the first.'}
      </p>
      <table class="versions">
        <thead>
          <tr>
            <th scope="col">Column</th>
            <th scope="col">Change</th>
            <th scope="col">Impact</th>
          </tr>
        </thead>
        <tbody>
          {c.changes.map((change) => (
            <tr>
              <th scope="row">{change.column}</th>
              <td>
                <span class={change.impact === 'breaking' ? 'change breaking' : 'change'}>{changeText(change)}</span>
              </td>
              <td>{change.impact}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {c.changes.length === 0 && <p>The columns are the same.</p>}
    </Layout>
  );
}
