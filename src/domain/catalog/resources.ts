import type { Resource } from '../../entities/index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { notFound, validationFailed } from '../errors.ts';
import type { PreviewRecord } from '../pipeline/preview-record.ts';
import { loadVisibleResource } from '../resources/resources.ts';
import { queryResource } from '../resources/query.ts';
import type { ColumnType } from '../../tabular/column-schema.ts';
import { sqlIdentifier } from '../../tabular/duckdb-session.ts';

/** The most rows one page of a resource's preview gives (the query sandbox's own row cap). */
export const MAX_PREVIEW_PAGE = 10_000;

/** A resource of an active dataset the actor may see; a draft's or a deleted dataset's is 404, as is an unseen one. */
export async function loadCatalogResource(ctx: DomainContext, actor: Actor, id: string): Promise<Resource> {
  const { resource, dataset } = await loadVisibleResource(ctx, actor, id, true);
  if (dataset.state !== 'active') throw notFound('Resource');
  return resource;
}

/** True when the resource has a typed preview to read rows from. */
export const hasTypedPreview = (resource: Resource) => {
  const preview = resource.extras.preview as PreviewRecord | null | undefined;
  return resource.extras.queryable === true && !!preview?.createdAt && !!preview.schema;
};

export interface PreviewPage {
  resourceId: string;
  columns: Array<{ name: string; type: ColumnType }>;
  rows: Record<string, unknown>[];
  total: number;
  limit: number;
  offset: number;
}

/**
 * A page of the rows of a resource's typed preview, optionally only some columns, through the same
 * query sandbox (and its one-query-per-caller lock) as POST /resources/{id}/query. No preview is 404.
 */
export async function previewPage(
  ctx: DomainContext,
  actor: Actor,
  id: string,
  opts: { fields?: string[]; limit: number; offset: number },
  caller: string,
): Promise<PreviewPage> {
  const resource = await loadCatalogResource(ctx, actor, id);
  if (!hasTypedPreview(resource)) throw notFound('Resource');
  const schema = (resource.extras.preview as PreviewRecord).schema!;
  const known = new Map(schema.columns.map((c) => [c.name, c]));
  const unknown = (opts.fields ?? []).filter((f) => !known.has(f));
  if (unknown.length) throw validationFailed([{ path: 'fields', message: `field "${unknown[0]}" not in the resource` }]);
  const columns = (opts.fields ?? schema.columns.map((c) => c.name)).map((name) => ({ name, type: known.get(name)!.type }));
  const limit = Math.min(opts.limit, MAX_PREVIEW_PAGE);
  const rows =
    limit === 0 || columns.length === 0
      ? []
      : (
          await queryResource(
            ctx,
            actor,
            resource.id,
            `select ${columns.map((c) => sqlIdentifier(c.name)).join(', ')} from data limit ${limit} offset ${opts.offset}`,
            caller,
          )
        ).rows;
  // DuckDB's 64-bit integers arrive as text; those a JSON number holds exactly go back to numbers.
  const integers = columns.filter((c) => c.type === 'integer').map((c) => c.name);
  for (const row of rows) {
    for (const name of integers) {
      const v = row[name];
      if (typeof v === 'string' && Number.isSafeInteger(Number(v))) row[name] = Number(v);
    }
  }
  return { resourceId: resource.id, columns, rows, total: schema.rowCount, limit, offset: opts.offset };
}
