import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import type { DomainContext, DomainServices } from '../domain/context.ts';
import { invalidParameters } from '../domain/errors.ts';
import { fieldErrors } from '../http/validate.ts';
import { croissantDataset } from './croissant.ts';
import { dataJson } from './data-json.ts';
import { catalogGraph, datasetGraph, type CatalogSite } from './dcat-graph.ts';
import { everyPublicDataset, publicDataset, publicDatasetPage } from './public-datasets.ts';
import { isRdfFormat, negotiateRdf, RDF_FORMATS, serializeRdf, type RdfFormat } from './rdf-formats.ts';

/** Catalog pages: 100 datasets unless asked, at most 500 (each carries its distributions). */
export const CATALOG_PAGE_SIZE = { default: 100, max: 500 };

const whole = (def: number, min: number, max?: number) =>
  z.coerce
    .number()
    .int('must be an integer')
    .min(min, `must be at least ${min}`)
    .max(max ?? Number.MAX_SAFE_INTEGER, `must be at most ${max}`)
    .default(def);

/** An ISO 8601 date (midnight UTC) or date-time; one without an offset is read as UTC. */
const instant = z
  .union([z.iso.date(), z.iso.datetime({ offset: true, local: true })], { error: 'must be an ISO 8601 date or date-time' })
  .transform((s) => new Date(/T.*(Z|[+-]\d\d:?\d\d)$/i.test(s) || !s.includes('T') ? s : `${s}Z`));

const CatalogQuery = z.object({
  page: whole(1, 1),
  page_size: whole(CATALOG_PAGE_SIZE.default, 1, CATALOG_PAGE_SIZE.max),
  q: z.string().trim().max(500).optional(),
  modified_since: instant.optional(),
});

function parseCatalogQuery(ctx: Context) {
  const single = Object.fromEntries(Object.entries(ctx.query).map(([k, v]) => [k, Array.isArray(v) ? v.at(-1) : v]));
  const parsed = CatalogQuery.safeParse(single);
  if (!parsed.success) throw invalidParameters(fieldErrors(parsed.error));
  return parsed.data;
}

const CONTENT_TYPES: Record<RdfFormat, string> = {
  ttl: `${RDF_FORMATS.ttl}; charset=utf-8`,
  jsonld: RDF_FORMATS.jsonld,
  rdf: `${RDF_FORMATS.rdf}; charset=utf-8`,
};

/**
 * The feeds' routes: `/catalog(.ttl|.jsonld|.rdf)`, `/dataset/{nameOrId}.{ttl,jsonld,rdf}`,
 * `/dataset/{nameOrId}/croissant.jsonld` and `/data.json`. All public, all read as an anonymous caller.
 */
export function catalogRoutes(services: DomainServices): Router {
  const site: CatalogSite = { publicUrl: services.config.http.publicUrl, siteName: services.config.site.name };
  const router = new Router();
  const domainOf = (ctx: Context) => ctx.state.domain as DomainContext;

  async function serveCatalog(ctx: Context, format: RdfFormat, path: string) {
    const query = parseCatalogQuery(ctx);
    const { datasets, total } = await publicDatasetPage(domainOf(ctx), {
      offset: (query.page - 1) * query.page_size,
      limit: query.page_size,
      q: query.q || undefined,
      modifiedSince: query.modified_since,
    });
    const pageUrl = (page: number) => {
      const params = new URLSearchParams();
      for (const key of ['q', 'modified_since', 'page_size'] as const) {
        const given = ctx.query[key];
        if (typeof given === 'string' && given !== '') params.set(key, given);
      }
      params.set('page', String(page));
      return `${site.publicUrl}${path}?${params}`;
    };
    const quads = catalogGraph(site, datasets, { page: query.page, pageSize: query.page_size, total, pageUrl });
    ctx.type = CONTENT_TYPES[format];
    ctx.body = await serializeRdf(quads, format);
  }

  router.get('/catalog', async (ctx) => {
    ctx.vary('Accept');
    await serveCatalog(
      ctx,
      negotiateRdf((...types) => ctx.accepts(...types)),
      '/catalog',
    );
  });
  for (const format of Object.keys(RDF_FORMATS) as RdfFormat[]) {
    router.get(`/catalog.${format}`, (ctx) => serveCatalog(ctx, format, `/catalog.${format}`));
  }

  // `/dataset/{nameOrId}.ttl` and the others; the dataset's IRI itself, `/dataset/{id}`, answers RDF to a
  // client that asks for RDF (Linked Data), and leaves every other request to the routes after this one.
  router.get('/dataset/:file', async (ctx, next) => {
    const file = ctx.params.file!;
    const dot = file.lastIndexOf('.');
    const extension = dot > 0 ? file.slice(dot + 1) : '';
    let format: RdfFormat | undefined;
    if (isRdfFormat(extension)) format = extension;
    else if (dot < 0) {
      ctx.vary('Accept');
      const preferred = ctx.accepts('text/html', ...Object.values(RDF_FORMATS));
      format = (Object.keys(RDF_FORMATS) as RdfFormat[]).find((f) => RDF_FORMATS[f] === preferred);
    }
    if (!format) return next();
    const dataset = await publicDataset(domainOf(ctx), format === extension ? file.slice(0, dot) : file);
    ctx.type = CONTENT_TYPES[format];
    ctx.body = await serializeRdf(datasetGraph(site, dataset), format);
  });

  router.get('/dataset/:nameOrId/croissant.jsonld', async (ctx) => {
    const dataset = await publicDataset(domainOf(ctx), ctx.params.nameOrId!);
    ctx.type = RDF_FORMATS.jsonld;
    ctx.body = croissantDataset(site, dataset);
  });

  router.get('/data.json', async (ctx) => {
    ctx.type = 'application/json';
    ctx.body = await dataJson(site, everyPublicDataset(domainOf(ctx)));
  });
  return router;
}
