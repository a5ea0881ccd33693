import type { ExportFormat } from '../../query/export-formats.ts';
import { Layout, type PageFrame } from '../layout.tsx';
import { resourcePath, type SchemaView } from './resource.tsx';
import { DataTable } from './table.tsx';
import type { DatasetDetail } from './types.ts';

type Resource = NonNullable<DatasetDetail['resources']>[number];

export interface QueryOutcome {
  columns: string[];
  rows: Array<Record<string, unknown>>;
  rowCount: number;
  truncated: boolean;
  elapsedMs: number;
}

/** Queries to start from, written for this table's own columns. */
export function exampleQueries(schema: SchemaView): Array<{ label: string; sql: string }> {
  const columns = schema.schema?.columns ?? [];
  const q = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const examples = [
    { label: 'First rows', sql: 'SELECT * FROM data LIMIT 20' },
    { label: 'Count the rows', sql: 'SELECT COUNT(*) AS rows FROM data' },
  ];
  const text = columns.find((c) => c.type === 'string');
  const number = columns.find((c) => c.type === 'integer' || c.type === 'float');
  if (text)
    examples.push({
      label: `Most common ${text.name}`,
      sql: `SELECT ${q(text.name)}, COUNT(*) AS n FROM data GROUP BY 1 ORDER BY n DESC LIMIT 20`,
    });
  if (number)
    examples.push({ label: `Largest ${number.name}`, sql: `SELECT * FROM data ORDER BY ${q(number.name)} DESC NULLS LAST LIMIT 10` });
  if (text && number)
    examples.push({
      label: `Average ${number.name} by ${text.name}`,
      sql: `SELECT ${q(text.name)}, AVG(${q(number.name)}) AS average FROM data GROUP BY 1 ORDER BY average DESC LIMIT 20`,
    });
  return examples;
}

/** The console's download links: the API's export formats (src/query/export-formats.ts), as people know them. */
const DOWNLOADS: Array<[ExportFormat, string]> = [
  ['csv', 'CSV'],
  ['xlsx', 'Excel (XLSX)'],
  ['parquet', 'Parquet'],
  ['json', 'JSON Lines'],
];

/**
 * GET /dataset/{name}/resource/{id}/query?sql=…: the SQL console. The query is in the URL, so a result can
 * be bookmarked and shared; it runs under the API's own limits and its errors are the API's, said plainly.
 */
export function QueryPage(props: {
  frame: PageFrame;
  dataset: DatasetDetail;
  resource: Resource;
  schema: SchemaView;
  sql: string;
  outcome: QueryOutcome | null;
  error: { title: string; detail: string } | null;
}) {
  const { dataset, resource, sql, outcome } = props;
  const base = resourcePath(dataset, resource.id);
  const columns = props.schema.schema?.columns ?? [];
  return (
    <Layout frame={props.frame} title={`SQL · ${resource.name || 'Resource'}`}>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href={`/dataset/${encodeURIComponent(dataset.name)}`}>{dataset.title || dataset.name}</a> /{' '}
        <a href={base}>{resource.name || 'Resource'}</a>
      </nav>
      <h1>Query {resource.name || 'this resource'} with SQL</h1>
      <p class="muted">
        One read-only <code>SELECT</code> over the table <code>data</code>
        {columns.length > 0 && (
          <>
            {' '}
            (columns:{' '}
            {columns.map((c, i) => (
              <>
                {i > 0 && ', '}
                <code>{c.name}</code>
              </>
            ))}
            )
          </>
        )}
        ; at most 10,000 rows, 5 MB and 15 seconds, one query at a time.
      </p>
      <form method="get" action={`${base}/query`} class="form sql-form">
        <label for="sql">SQL</label>
        <textarea id="sql" name="sql" rows={6} spellcheck={false} required>
          {sql}
        </textarea>
        <button type="submit">Run query</button>
      </form>
      <details class="examples" open={!sql}>
        <summary>Example queries</summary>
        <ul>
          {exampleQueries(props.schema).map((e) => (
            <li>
              <a href={`${base}/query?sql=${encodeURIComponent(e.sql)}`}>{e.label}</a>: <code>{e.sql}</code>
            </li>
          ))}
        </ul>
      </details>
      {props.error && (
        <div class="error" role="alert">
          <strong>{props.error.title}.</strong> {props.error.detail}
        </div>
      )}
      {outcome && (
        <section aria-labelledby="result-heading">
          <h2 id="result-heading">
            {`${outcome.rowCount} row${outcome.rowCount === 1 ? '' : 's'}${outcome.truncated ? ' (cut at the limit)' : ''} in ${outcome.elapsedMs} ms`}
          </h2>
          <p>
            Download as{' '}
            {DOWNLOADS.map(([format, label], i) => (
              <>
                {i > 0 && ' · '}
                <a href={`${base}/query.${format}?sql=${encodeURIComponent(sql)}`} download aria-label={`Download as ${label}`}>
                  {label}
                </a>
              </>
            ))}
          </p>
          <DataTable columns={outcome.columns} rows={outcome.rows} caption="Query result" />
        </section>
      )}
    </Layout>
  );
}
