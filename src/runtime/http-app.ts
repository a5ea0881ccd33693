import Router from '@koa/router';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { ckanErrorSender, ckanSiteUrl } from '../api/ckan/envelope.ts';
import { ckanRouter } from '../api/ckan/index.ts';
import { CKAN_UPLOAD_PATHS } from '../api/ckan/multipart.ts';
import { isCkanPath } from '../api/ckan/paths.ts';
import { v1Routes } from '../api/v1/index.ts';
import { healthReporter } from './health.ts';
import { feedsRouter } from '../feeds/index.ts';
import { webRouter } from '../web/index.tsx';
import type { DomainServices } from '../domain/context.ts';
import { docsRouter } from '../http/docs.ts';
import { mcpEndpoint } from '../mcp/endpoint.ts';
import { authenticate } from '../http/middleware/authenticate.ts';
import { errorAnswers, problemErrors } from '../http/middleware/errors.ts';
import { limitJsonDepth } from '../http/middleware/json-depth.ts';
import { compression, publicRevalidation } from '../http/middleware/public-answers.ts';
import { requestDeadlines } from '../http/middleware/request-deadlines.ts';
import { requestId } from '../http/middleware/request-id.ts';
import { buildOpenApi } from '../http/openapi.ts';
import { allowedMethods } from '../http/path-precedence.ts';
import { mountRoutes, streamedBodyPaths } from '../http/route.ts';

/**
 * The one place the HTTP entry points meet: REST, CKAN, MCP, the feeds and the web pages on one Koa app.
 * Request id and logs → problem+json errors → compression, revalidation → body → caller → routes.
 */
export function createHttpApp(services: DomainServices) {
  // Only the entries our own proxies appended to X-Forwarded-For are trusted; the rest is the client's to forge.
  const { trustProxy, trustedProxyHops } = services.config.http;
  const app = new Koa({ proxy: trustProxy, maxIpsCount: trustedProxyHops });
  app.silent = true;

  const v1 = new Router({ prefix: '/api/v1' });
  mountRoutes(v1, v1Routes, { selfCheck: services.config.http.selfCheck, selfCheckReport: services.config.http.selfCheckReport });

  const health = new Router();
  const healthReport = healthReporter(services);
  health.get('/api/health', async (ctx) => {
    const report = await healthReport();
    ctx.status = report.status === 'down' ? 503 : 200;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = report;
  });

  const docs = docsRouter(buildOpenApi(v1Routes, services.config.http.publicUrl), services.config.http.publicUrl);

  // Uploads stream their bytes to storage: whatever their Content-Type, nothing may read them first.
  const streamed = streamedBodyPaths(v1Routes);
  app.use(requestId(app, services.log));
  app.use(
    requestDeadlines({
      requestTimeoutMs: services.config.http.requestTimeoutMs,
      uploadIdleMs: services.config.http.uploadIdleMs,
      uploads: [...streamed, ...CKAN_UPLOAD_PATHS],
    }),
  );
  // The CKAN-compatible API answers its failures in CKAN's envelope; everything else is problem+json.
  const ckanErrors = errorAnswers(ckanErrorSender(ckanSiteUrl(services.config)));
  app.use((ctx, next) => (isCkanPath(ctx.path) ? ckanErrors : problemErrors)(ctx, next));
  app.use(async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'no-store');
    await next();
  });
  app.use(compression());
  app.use(publicRevalidation());
  app.use(health.routes());
  app.use(docs.routes());
  const parseJson = koaBody({
    jsonLimit: services.config.http.maxJsonBody,
    jsonStrict: true,
    multipart: false,
    urlencoded: false,
    text: false,
  });
  app.use((ctx, next) => (streamed.some((re) => re.test(ctx.path)) ? next() : parseJson(ctx, next)));
  app.use(limitJsonDepth);
  app.use(authenticate(services, isCkanPath));
  app.use(mcpEndpoint());
  app.use(v1.routes());
  app.use(allowedMethods(v1Routes, v1.opts.prefix ?? ''));
  app.use(ckanRouter(services).routes());
  app.use(feedsRouter(services).routes());
  app.use(webRouter(services).routes());
  return app;
}
