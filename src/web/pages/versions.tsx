import type { listVersions } from '../../domain/resources/versions.ts';

type Versions = Awaited<ReturnType<typeof listVersions>>;

const changeText = (c: { kind: string; column: string; previousName?: string; previousType?: string; type?: string }) => {
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

/**
 * A resource's data versions on its page (issue 30 §2–3): each file it served, newest first, with its
 * rows and what its columns changed against the version before, breaking changes first.
 */
export function VersionsSection(props: { resourceId: string; versions: Versions }) {
  const { resourceId, versions } = props;
  if (versions.results.length === 0) return null;
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
          {versions.results.map((v) => {
            const changes = [...(v.schemaChanges?.changes ?? [])].sort((a, b) =>
              a.impact === b.impact ? 0 : a.impact === 'breaking' ? -1 : 1,
            );
            return (
              // The anchor the DCAT feeds name the version by (src/feeds/dcat-versions.ts).
              <tr id={`version-${v.version}`}>
                <th scope="row">
                  <a href={`/api/v1/resources/${resourceId}/versions/${v.version}/download`}>{`v${v.version}`}</a>
                  {v.current && <span class="badge">Current</span>}
                </th>
                <td>
                  <time datetime={v.createdAt}>{v.createdAt.slice(0, 10)}</time>
                </td>
                <td>{v.rowCount ?? '—'}</td>
                <td>
                  {v.schemaChanges === null
                    ? '—'
                    : changes.length === 0
                      ? 'none'
                      : changes.map((c) => <span class={c.impact === 'breaking' ? 'change breaking' : 'change'}>{changeText(c)}</span>)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
