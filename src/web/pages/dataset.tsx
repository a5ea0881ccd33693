import { licenseFor } from '../../domain/licenses.ts';
import { Layout, type PageFrame } from '../layout.tsx';
import { DATASET_LABELS, labelledRows } from './record-labels.ts';
import { Coverage, ExtrasTable, RecordList } from './record-view.tsx';
import type { DatasetDetail } from './types.ts';

type Resource = NonNullable<DatasetDetail['resources']>[number];

/** 1.2 MB, 340 KB, 12 B. */
export function formatBytes(bytes: number | null) {
  if (bytes === null) return null;
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : null);

function ResourceRow(props: { dataset: DatasetDetail; resource: Resource }) {
  const r = props.resource;
  const size = formatBytes(r.size);
  return (
    <li class="resource">
      <div>
        <a href={`/dataset/${encodeURIComponent(props.dataset.name)}/resource/${r.id}`} class="resource-name">
          {r.name || 'Unnamed resource'}
        </a>
        {r.format && <span class="format">{r.format}</span>}
        {size && <span class="size">{size}</span>}
      </div>
      {r.description && <p>{r.description}</p>}
      {r.url && (
        <a href={r.url} class="download" rel={r.urlType === 'link' ? 'nofollow ugc noopener' : undefined}>
          {r.urlType === 'upload' ? 'Download' : 'Go to resource'}
        </a>
      )}
    </li>
  );
}

/** The metadata record, the profile's fields and the extras: every part of the record that is set. */
function DatasetRecord(props: { dataset: DatasetDetail }) {
  const d = props.dataset;
  const rows = labelledRows(DATASET_LABELS, d as unknown as Record<string, unknown>);
  const custom = Object.entries(d.customFields ?? {});
  const anySet = rows.some(([, v]) => v !== null && !(Array.isArray(v) && v.length === 0));
  return (
    <>
      <Coverage temporal={d.temporal ?? []} spatial={d.spatial ?? []} />
      {anySet && (
        <section aria-labelledby="record-heading">
          <h2 id="record-heading">Metadata</h2>
          <RecordList rows={rows} />
        </section>
      )}
      {custom.length > 0 && (
        <section aria-labelledby="custom-heading">
          <h2 id="custom-heading">Additional fields</h2>
          <RecordList rows={custom} />
        </section>
      )}
      {(d.extras ?? []).length > 0 && (
        <section aria-labelledby="extras-heading">
          <h2 id="extras-heading">Extras</h2>
          <ExtrasTable extras={d.extras} caption="Extras: key/value pairs kept as the publisher or source gave them" />
        </section>
      )}
    </>
  );
}

/** GET /dataset/{name}: the dataset for people, with its JSON and RDF twins one click away. */
export function DatasetPageView(props: {
  frame: PageFrame;
  dataset: DatasetDetail;
  notesHtml: string | null;
  jsonLd: string | null;
  editable: boolean;
}) {
  const d = props.dataset;
  const license = licenseFor(d.licenseId);
  const title = d.title || d.name;
  const feeds = props.jsonLd !== null;
  const json = `/api/v1/packages/${encodeURIComponent(d.name)}`;
  return (
    <Layout
      frame={props.frame}
      title={title}
      json={json}
      head={feeds && <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: props.jsonLd! }} />}
    >
      <article class="dataset">
        <nav aria-label="Breadcrumb" class="breadcrumb">
          <a href="/dataset">Datasets</a>
          {d.organization && (
            <>
              {' / '}
              <a href={`/organization/${encodeURIComponent(d.organization.name)}`}>{d.organization.title || d.organization.name}</a>
            </>
          )}
        </nav>
        <h1>
          {title}
          {d.private && <span class="badge">Private</span>}
          {d.state !== 'active' && <span class="badge">{d.state === 'draft' ? 'Draft' : 'Deleted'}</span>}
        </h1>
        <p class="actions">
          {props.editable && d.state === 'active' && !d.harvest && (
            <a class="button secondary" href={`/dataset/${encodeURIComponent(d.name)}/edit`}>
              Edit
            </a>
          )}{' '}
          <a class="button secondary" href={`/dataset/${encodeURIComponent(d.name)}/history`}>
            History
          </a>
        </p>
        <div class="dataset-layout">
          <div>
            {props.notesHtml ? (
              <div class="notes" dangerouslySetInnerHTML={{ __html: props.notesHtml }} />
            ) : (
              <p class="muted">No description.</p>
            )}
            <section aria-labelledby="resources-heading">
              <h2 id="resources-heading">Data and resources</h2>
              {(d.resources ?? []).length === 0 ? (
                <p class="muted">No resources yet.</p>
              ) : (
                <ul class="resources">
                  {(d.resources ?? []).map((r) => (
                    <ResourceRow dataset={d} resource={r} />
                  ))}
                </ul>
              )}
            </section>
            <DatasetRecord dataset={d} />
          </div>
          <aside aria-label="About this dataset" class="about">
            <dl>
              {d.organization && (
                <>
                  <dt>Organization</dt>
                  <dd>
                    <a href={`/organization/${encodeURIComponent(d.organization.name)}`}>{d.organization.title || d.organization.name}</a>
                  </dd>
                </>
              )}
              <dt>License</dt>
              <dd>{license ? license.url ? <a href={license.url}>{license.title}</a> : license.title : (d.licenseId ?? 'Not given')}</dd>
              {d.groups.length > 0 && (
                <>
                  <dt>Categories</dt>
                  <dd>
                    {d.groups.map((g, i) => (
                      <>
                        {i > 0 && ', '}
                        <a href={`/group/${encodeURIComponent(g.name)}`}>{g.title || g.name}</a>
                      </>
                    ))}
                  </dd>
                </>
              )}
              {d.tags.length > 0 && (
                <>
                  <dt>Tags</dt>
                  <dd>
                    <ul class="chips">
                      {d.tags.map((tag) => (
                        <li>
                          <a href={`/dataset?tags=${encodeURIComponent(tag)}`}>{tag}</a>
                        </li>
                      ))}
                    </ul>
                  </dd>
                </>
              )}
              {d.maintainer && (
                <>
                  <dt>Maintainer</dt>
                  <dd>{d.maintainer}</dd>
                </>
              )}
              {d.version && (
                <>
                  <dt>Version</dt>
                  <dd>{d.version}</dd>
                </>
              )}
              <dt>Updated</dt>
              <dd>
                <time datetime={d.updatedAt}>{day(d.updatedAt)}</time>
              </dd>
              {d.publishedAt && (
                <>
                  <dt>Published</dt>
                  <dd>
                    <time datetime={d.publishedAt}>{day(d.publishedAt)}</time>
                  </dd>
                </>
              )}
            </dl>
            <h2>Other forms</h2>
            <ul class="plain">
              <li>
                <a href={json} type="application/json">
                  JSON (API)
                </a>
              </li>
              {feeds && (
                <>
                  <li>
                    <a href={`/dataset/${d.id}.ttl`} type="text/turtle">
                      DCAT-AP (Turtle)
                    </a>
                  </li>
                  <li>
                    <a href={`/dataset/${d.id}.jsonld`} type="application/ld+json">
                      DCAT-AP (JSON-LD)
                    </a>
                  </li>
                  <li>
                    <a href={`/dataset/${encodeURIComponent(d.name)}/croissant.jsonld`} type="application/ld+json">
                      Croissant
                    </a>
                  </li>
                </>
              )}
            </ul>
          </aside>
        </div>
      </article>
    </Layout>
  );
}
