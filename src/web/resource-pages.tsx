import type Router from '@koa/router';
import type { Context } from 'koa';
import { getDataset } from '../domain/datasets/lifecycle.ts';
import { DomainError, invalidParameters, notFound } from '../domain/errors.ts';
import { openText, pipelineStatus, resourceSchema } from '../domain/resources/files.ts';
import { queryCaller, queryResource } from '../domain/resources/query.ts';
import { compareVersions, listVersions } from '../domain/resources/versions.ts';
import { acceptVersion, declineVersion } from '../domain/resources/version-review.ts';
import { mayEditDataset } from '../domain/datasets/access.ts';
import { checkCsrf } from './csrf.ts';
import { readForm } from './form.ts';
import { CompareVersionsPage } from './pages/versions.tsx';
import { QUERY_LIMITS } from '../query/sandbox.ts';
import { sendExport } from '../api/v1/resources/export-response.ts';
import { exportResource } from '../domain/resources/export.ts';
import { EXPORT_FORMATS } from '../query/export-formats.ts';
import { binsByColumn, histogramSql } from './histogram.ts';
import { actorOf, domainOf, frameOf, loggedIn, mountPage } from './page-context.tsx';
import { QueryPage, type QueryOutcome } from './pages/query.tsx';
import { resourcePath, ResourcePageView, type PreviewRows } from './pages/resource.tsx';
import { sendPage } from './render.ts';
import type { DomainServices } from '../domain/context.ts';

const ROWS_PER_PAGE = 50;
/** The start of a text file shown on its page. */
const TEXT_PREVIEW_BYTES = 16 * 1024;

/** A published dataset, else a draft the caller may see (its editors follow their upload's pipeline here). */
async function loadDataset(ctx: Context) {
  try {
    return await getDataset(domainOf(ctx), actorOf(ctx), ctx.params.name!, { draft: false });
  } catch (err) {
    if (!(err instanceof DomainError && err.code === 'not_found') || !actorOf(ctx).userId) throw err;
    return getDataset(domainOf(ctx), actorOf(ctx), ctx.params.name!, { draft: true });
  }
}

/** The dataset and one of its resources, as the caller may see them; a resource of another dataset is not found. */
async function loadPair(ctx: Context) {
  const dataset = await loadDataset(ctx);
  const resource = dataset.resources?.find((r) => r.id === ctx.params.id);
  if (!resource) throw notFound('Resource');
  return { dataset, resource };
}

/**
 * How long a page waits for the caller's other queries (another tab, a shared address): no query runs
 * longer than its timeout.
 */
const BUSY_WAIT_MS = QUERY_LIMITS.timeoutMs + 1_000;

/** A query of the page (its result as JSON values). */
function runQuery(ctx: Context, resourceId: string, sql: string, deadline?: number): Promise<QueryOutcome> {
  return untilNotBusy(ctx, () => queryResource(domainOf(ctx), actorOf(ctx), resourceId, sql, queryCaller(actorOf(ctx), ctx.ip)), deadline);
}

/**
 * A query or export of the page, under the API's one-at-a-time rule per caller; where the API answers 429
 * at once, a page waits for the other query to end, as a person reloading would, until `deadline` or
 * until the browser has gone.
 */
async function untilNotBusy<T>(ctx: Context, work: () => Promise<T>, deadline = Date.now() + BUSY_WAIT_MS): Promise<T> {
  for (;;) {
    try {
      return await work();
    } catch (err) {
      const waiting = err instanceof DomainError && err.code === 'query_busy' && Date.now() < deadline && !ctx.req.destroyed;
      if (!waiting) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** The first bytes of a text file, decoded; null for a file with no text (or none yet). */
async function textStart(ctx: Context, resourceId: string): Promise<string | null> {
  const domain = domainOf(ctx);
  try {
    const text = await openText(domain, actorOf(ctx), resourceId);
    if (text.size === 0) return '';
    const chunks: Buffer[] = [];
    for await (const chunk of await domain.storage.read(text.key, { start: 0, end: Math.min(text.size, TEXT_PREVIEW_BYTES) - 1 }))
      chunks.push(chunk as Buffer);
    return new TextDecoder(text.encoding).decode(Buffer.concat(chunks));
  } catch (err) {
    if (err instanceof DomainError && (err.code === 'no_preview' || err.code === 'not_text')) return null;
    throw err;
  }
}

/** The resource page and its SQL console, with the console's CSV twin. */
export function mountResourcePages(router: Router, services: DomainServices) {
  mountPage(router, services, 'GET /dataset/:name/resource/:id', async (ctx) => {
    const { dataset, resource } = await loadPair(ctx);
    const domain = domainOf(ctx);
    const actor = actorOf(ctx);
    const [frame, pipeline, schema, versions, editable] = await Promise.all([
      frameOf(ctx, services),
      pipelineStatus(domain, actor, resource.id),
      resourceSchema(domain, actor, resource.id),
      listVersions(domain, actor, resource.id, { offset: 0, limit: 100 }),
      mayEditDataset(domain, actor, dataset.id),
    ]);
    let preview: PreviewRows | null = null;
    let histograms: number[][] | null = null;
    let notice: string | null = null;
    if (schema.queryable) {
      const offset = Math.max(0, Math.min(Number.parseInt(String(ctx.query.offset ?? '0'), 10) || 0, 1_000_000));
      const numeric = (schema.schema?.columns ?? [])
        .filter((c) => c.stats)
        .map((c) => ({ name: c.name, min: Number(c.stats!.min), max: Number(c.stats!.max) }));
      const sql = histogramSql(numeric);
      // One query at a time per caller, as in the API: the rows, then the histograms, both within one wait.
      const deadline = Date.now() + BUSY_WAIT_MS;
      try {
        const rows = await runQuery(ctx, resource.id, `SELECT * FROM data LIMIT ${ROWS_PER_PAGE} OFFSET ${offset}`, deadline);
        preview = { columns: rows.columns, rows: rows.rows, offset, limit: ROWS_PER_PAGE };
        if (sql) histograms = binsByColumn((await runQuery(ctx, resource.id, sql, deadline)).rows, numeric.length);
      } catch (err) {
        // The page stands without them: its columns, steps and links do not depend on a query.
        if (!(err instanceof DomainError)) throw err;
        notice =
          err.code === 'query_busy'
            ? 'Another query of yours is running: reload the page in a moment to see the rows.'
            : `The rows could not be read: ${err.message}`;
      }
    }
    const text = schema.queryable ? null : await textStart(ctx, resource.id);
    sendPage(
      ctx,
      <ResourcePageView
        frame={frame}
        dataset={dataset}
        resource={resource}
        pipeline={pipeline}
        schema={schema}
        histograms={histograms}
        preview={preview}
        text={text}
        notice={notice}
        versions={versions}
        editable={editable}
      />,
    );
  });

  mountPage(router, services, 'GET /dataset/:name/resource/:id/versions/compare', async (ctx) => {
    const { dataset, resource } = await loadPair(ctx);
    const [from, to] = [ctx.query.from, ctx.query.to].map((n) => (/^[1-9]\d{0,8}$/.test(String(n)) ? Number(n) : null));
    if (!from || !to) throw invalidParameters([{ path: from ? 'to' : 'from', message: 'must be a version number' }]);
    const [frame, comparison] = await Promise.all([
      frameOf(ctx, services),
      compareVersions(domainOf(ctx), actorOf(ctx), resource.id, to, from),
    ]);
    const base = resourcePath(dataset, resource.id);
    sendPage(
      ctx,
      <CompareVersionsPage
        frame={frame}
        dataset={dataset}
        resourceName={resource.name || 'Resource'}
        base={base}
        comparison={comparison}
      />,
    );
  });

  mountPage(router, services, 'POST /dataset/:name/resource/:id/versions/:n/:decision', async (ctx) => {
    checkCsrf(ctx, await readForm(ctx));
    if (!loggedIn(ctx)) return;
    const decision = ctx.params.decision;
    const review = decision === 'accept' ? acceptVersion : decision === 'decline' ? declineVersion : null;
    const n = /^[1-9]\d{0,8}$/.test(ctx.params.n!) ? Number(ctx.params.n) : null;
    if (!review || !n) throw notFound('The page');
    const { dataset, resource } = await loadPair(ctx);
    await review(domainOf(ctx), actorOf(ctx), resource.id, n);
    ctx.redirect(resourcePath(dataset, resource.id));
  });

  mountPage(router, services, 'GET /dataset/:name/resource/:id/query', async (ctx) => {
    const { dataset, resource } = await loadPair(ctx);
    const sql = String(ctx.query.sql ?? '').trim();
    const [frame, schema] = await Promise.all([frameOf(ctx, services), resourceSchema(domainOf(ctx), actorOf(ctx), resource.id)]);
    let outcome: QueryOutcome | null = null;
    let error: { title: string; detail: string } | null = null;
    let status = 200;
    if (sql) {
      try {
        outcome = await runQuery(ctx, resource.id, sql);
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        error = { title: err.title, detail: err.message };
        status = err.status;
      }
    }
    sendPage(
      ctx,
      <QueryPage frame={frame} dataset={dataset} resource={resource} schema={schema} sql={sql} outcome={outcome} error={error} />,
      status,
    );
  });

  mountPage(router, services, 'GET /dataset/:name/resource/:id/query.:format', async (ctx) => {
    const format = EXPORT_FORMATS.find((known) => known === ctx.params.format);
    if (!format) throw notFound('The page');
    const { resource } = await loadPair(ctx);
    const sql = String(ctx.query.sql ?? '').trim();
    if (!sql) throw invalidParameters([{ path: 'sql', message: 'is required' }], 'Give the query as ?sql=…');
    // The API's export (one module for both), waiting its turn as the console's queries do.
    const exported = await untilNotBusy(ctx, () =>
      exportResource(domainOf(ctx), actorOf(ctx), resource.id, { format, sql }, queryCaller(actorOf(ctx), ctx.ip)),
    );
    sendExport(ctx, exported);
  });
}
