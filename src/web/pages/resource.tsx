import { PendingVersionNotice, VersionsSection } from './versions.tsx';
import type { PendingVersionNote } from '../../domain/pipeline/version-record.ts';
import type { pipelineStatus, resourceSchema } from '../../domain/resources/files.ts';
import { Layout, type PageFrame } from '../layout.tsx';
import { formatBytes } from './dataset.tsx';
import { Histogram } from './histogram.tsx';
import { DataTable } from './table.tsx';
import { DISTRIBUTION_LABELS, labelledRows } from './record-labels.ts';
import { ExtrasTable, RecordList } from './record-view.tsx';
import type { DatasetDetail } from './types.ts';

type Resource = NonNullable<DatasetDetail['resources']>[number];
export type SchemaView = Awaited<ReturnType<typeof resourceSchema>>;
export type PipelineView = Awaited<ReturnType<typeof pipelineStatus>>;

export interface PreviewRows {
  columns: string[];
  rows: Array<Record<string, unknown>>;
  offset: number;
  limit: number;
}

const STEP_LABELS: Record<string, string> = {
  fetch: 'Fetch the file',
  inspect: 'Detect format and encoding',
  preview: 'Build the typed preview',
  text: 'Extract text',
  index: 'Index for search',
};

export const resourcePath = (dataset: { name: string }, resourceId: string) =>
  `/dataset/${encodeURIComponent(dataset.name)}/resource/${resourceId}`;

function PipelineSteps(props: { pipeline: PipelineView }) {
  const { pipeline } = props;
  if (pipeline.status === 'none') return null;
  return (
    <section aria-labelledby="pipeline-heading" class="pipeline">
      <h2 id="pipeline-heading">{`Processing: ${pipeline.status}`}</h2>
      <ol class="steps">
        {pipeline.steps.map((step) => (
          <li class={`step ${step.status}`}>
            <span class="step-status">{step.status}</span> {STEP_LABELS[step.name] ?? step.name}
            {step.error && <span class="error-text"> — {step.error}</span>}
          </li>
        ))}
      </ol>
      {pipeline.error && <p class="error">{pipeline.error}</p>}
    </section>
  );
}

/** The distribution record, the profile's resource fields and the resource's own extras, when set. */
function DistributionRecord(props: { resource: Resource }) {
  const r = props.resource;
  const rows = [...labelledRows(DISTRIBUTION_LABELS, r as unknown as Record<string, unknown>), ...Object.entries(r.customFields ?? {})];
  const anySet = rows.some(([, v]) => v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0));
  if (!anySet && (r.customExtras ?? []).length === 0) return null;
  return (
    <section aria-labelledby="distribution-heading">
      <h2 id="distribution-heading">About this resource</h2>
      <RecordList rows={rows} />
      <ExtrasTable extras={r.customExtras ?? []} caption="Extras: key/value pairs kept as the publisher or source gave them" />
    </section>
  );
}

/** GET /dataset/{name}/resource/{id}: the file, its pipeline, its columns with their statistics, and its rows. */
export function ResourcePageView(props: {
  frame: PageFrame;
  dataset: DatasetDetail;
  resource: Resource;
  pipeline: PipelineView;
  schema: SchemaView;
  histograms: number[][] | null;
  preview: PreviewRows | null;
  text: string | null;
  notice: string | null;
  versions: Parameters<typeof VersionsSection>[0]['versions'];
  /** Whether the caller may edit the dataset: they answer a held version. */
  editable: boolean;
}) {
  const { dataset, resource: r, schema, preview } = props;
  const base = resourcePath(dataset, r.id);
  const columns = schema.schema?.columns ?? [];
  const numeric = columns.filter((c) => c.stats);
  const running = props.pipeline.status === 'queued' || props.pipeline.status === 'running';
  const size = formatBytes(r.size);
  const held = r.extras.pendingVersion as PendingVersionNote | null | undefined;
  return (
    <Layout
      frame={props.frame}
      title={`${r.name || 'Resource'} · ${dataset.title || dataset.name}`}
      json={`/api/v1/resources/${r.id}`}
      // Without JavaScript the page still follows the pipeline: it reloads itself while a step runs.
      head={running && <meta http-equiv="refresh" content="3" />}
    >
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href="/dataset">Datasets</a> / <a href={`/dataset/${encodeURIComponent(dataset.name)}`}>{dataset.title || dataset.name}</a>
      </nav>
      <h1>
        {r.name || 'Unnamed resource'}
        {r.format && <span class="format">{r.format}</span>}
        {size && <span class="size">{size}</span>}
      </h1>
      {r.description && <p>{r.description}</p>}
      <p class="actions">
        {r.url && (
          <a
            class="button"
            href={r.urlType === 'upload' ? `/api/v1/resources/${r.id}/download` : r.url}
            rel={r.urlType === 'link' ? 'nofollow ugc noopener' : undefined}
          >
            {r.urlType === 'upload' ? 'Download' : 'Go to the source'}
          </a>
        )}
        {schema.queryable && (
          <a class="button secondary" href={`${base}/query`}>
            Query with SQL
          </a>
        )}
      </p>
      {held && <PendingVersionNotice base={base} resourceId={r.id} held={held} editable={props.editable} csrf={props.frame.csrf} />}
      <DistributionRecord resource={r} />
      <PipelineSteps pipeline={props.pipeline} />
      {props.notice && (
        <p class="notice" role="status">
          {props.notice}
        </p>
      )}
      {schema.schema && (
        <section aria-labelledby="columns-heading">
          <h2 id="columns-heading">{`${columns.length} columns, ${schema.schema.rowCount} rows${schema.schema.previewTruncated ? ' in the preview (the file is longer)' : ''}`}</h2>
          <div class="table-scroll" tabIndex={0} role="region" aria-label="Columns">
            <table class="columns">
              <thead>
                <tr>
                  <th scope="col">Column</th>
                  <th scope="col">Type</th>
                  <th scope="col">Nulls</th>
                  <th scope="col">Min</th>
                  <th scope="col">Max</th>
                  <th scope="col">Distribution</th>
                </tr>
              </thead>
              <tbody>
                {columns.map((c) => {
                  const bins = c.stats ? props.histograms?.[numeric.indexOf(c)] : undefined;
                  return (
                    <tr>
                      <th scope="row">{c.name}</th>
                      <td>{c.type}</td>
                      <td class="num">{c.nullCount}</td>
                      <td class="num">{c.stats?.min ?? ''}</td>
                      <td class="num">{c.stats?.max ?? ''}</td>
                      <td>
                        {bins && <Histogram bins={bins} label={`Distribution of ${c.name} from ${c.stats!.min} to ${c.stats!.max}`} />}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </section>
      )}
      {preview && (
        <section aria-labelledby="rows-heading">
          <h2 id="rows-heading">{`Rows ${preview.offset + 1}–${preview.offset + preview.rows.length}`}</h2>
          <DataTable
            columns={preview.columns}
            rows={preview.rows}
            caption="Rows of the preview"
            types={new Map(columns.map((c) => [c.name, c.type]))}
          />
          <nav aria-label="Pages of rows" class="pager">
            {preview.offset > 0 && (
              <a rel="prev" href={`${base}?offset=${Math.max(0, preview.offset - preview.limit)}`}>
                ← Previous rows
              </a>
            )}
            {preview.offset + preview.rows.length < (schema.schema?.rowCount ?? 0) && (
              <a rel="next" href={`${base}?offset=${preview.offset + preview.limit}`}>
                Next rows →
              </a>
            )}
          </nav>
        </section>
      )}
      <VersionsSection base={base} resourceId={r.id} versions={props.versions} />
      {props.text !== null && (
        <section aria-labelledby="text-heading">
          <h2 id="text-heading">Text preview</h2>
          <pre class="text-preview" tabIndex={0}>
            {props.text}
          </pre>
        </section>
      )}
    </Layout>
  );
}
