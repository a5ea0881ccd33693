import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import type { DomainContext, DomainServices } from '../domain/context.ts';
import { invalidParameters } from '../domain/errors.ts';
import { sendProblem } from '../http/problem.ts';
import { fieldErrors } from '../http/validate.ts';
import { auditedRunner, unitKey, type UnitDeclaration } from '../policies/audited-runner.ts';
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
 * Every feed route: each answers through `feed()`, which runs it under the audited runner as
 * `feed:<line>`, and the audit report expects each to have run (test/run.ts). Feeds are public, but they
 * read through the visibility rule like any other caller, so none declares `noPolicy`.
 */
export const FEED_ROUTES = {
  'GET /catalog': {},
  'GET /catalog.ttl': {},
  'GET /catalog.jsonld': {},
  'GET /catalog.rdf': {},
  'GET /dataset/:file': {},
  'GET /dataset/:nameOrId/croissant.jsonld': {},
  'GET /data.json': {},
} satisfies Record<string, UnitDeclaration>;
export type FeedRoute = keyof typeof FEED_ROUTES;

/**
 * The feeds' routes: `/catalog(.ttl|.jsonld|.rdf)`, `/dataset/{nameOrId}.{ttl,jsonld,rdf}`,
 * `/dataset/{nameOrId}/croissant.jsonld` and `/data.json`. All public, all read as an anonymous caller.
 */
export function catalogRoutes(services: DomainServices): Router {
  const site: CatalogSite = { publicUrl: services.config.http.publicUrl, siteName: services.config.site.name };
  const router = new Router();
  const domainOf = (ctx: Context) => ctx.state.domain as DomainContext;
  const run = auditedRunner(services.config.http);
  /** Answers a request of a feed route, its failures (and text nothing can store) as problem+json. */
  const feed = (route: FeedRoute, ctx: Context, serve: () => Promise<void>) =>
    run({ key: unitKey('feed', route), ...FEED_ROUTES[route] }, serve, {
      refuse: (err) => sendProblem(ctx, err),
      inputs: [ctx.params, ctx.query],
    });

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

  router.get('/catalog', (ctx) => {
    ctx.vary('Accept');
    return feed('GET /catalog', ctx, () =>
      serveCatalog(
        ctx,
        negotiateRdf((...types) => ctx.accepts(...types)),
        '/catalog',
      ),
    );
  });
  for (const format of Object.keys(RDF_FORMATS) as RdfFormat[]) {
    router.get(`/catalog.${format}`, (ctx) => feed(`GET /catalog.${format}`, ctx, () => serveCatalog(ctx, format, `/catalog.${format}`)));
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
    // Outside the feed's audit: the page that answers instead runs under its own.
    if (!format) return next();
    const chosen = format;
    await feed('GET /dataset/:file', ctx, async () => {
      const dataset = await publicDataset(domainOf(ctx), chosen === extension ? file.slice(0, dot) : file);
      ctx.type = CONTENT_TYPES[chosen];
      ctx.body = await serializeRdf(datasetGraph(site, dataset), chosen);
    });
  });

  router.get('/dataset/:nameOrId/croissant.jsonld', (ctx) =>
    feed('GET /dataset/:nameOrId/croissant.jsonld', ctx, async () => {
      const dataset = await publicDataset(domainOf(ctx), ctx.params.nameOrId!);
      ctx.type = RDF_FORMATS.jsonld;
      ctx.body = croissantDataset(site, dataset);
    }),
  );

  router.get('/data.json', (ctx) =>
    feed('GET /data.json', ctx, async () => {
      ctx.type = 'application/json';
      ctx.body = await dataJson(site, everyPublicDataset(domainOf(ctx)));
    }),
  );
  return router;
}
