import fs from 'node:fs/promises';
import path from 'node:path';
import Router from '@koa/router';
import { getAbsoluteFSPath } from 'swagger-ui-dist';

const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png']);
const TYPES: Record<string, string> = { '.css': 'text/css', '.js': 'application/javascript', '.png': 'image/png' };

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Almanac API</title>
<link rel="stylesheet" href="/api/docs/swagger-ui.css"><link rel="icon" href="/api/docs/favicon-32x32.png"></head>
<body><div id="ui"></div><script src="/api/docs/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#ui', deepLinking: true });</script></body></html>`;

/** The docs page at /api/docs: Swagger UI served from the npm package, no CDN needed. */
export function docsRouter(openapi: unknown) {
  const router = new Router();
  const dir = getAbsoluteFSPath();
  router.get('/api/v1/openapi.json', (ctx) => {
    ctx.body = openapi;
  });
  router.get('/api/docs', (ctx) => {
    ctx.type = 'text/html';
    ctx.body = page;
  });
  router.get('/api/docs/:asset', async (ctx, next) => {
    if (!ASSETS.has(ctx.params.asset)) return next();
    ctx.type = TYPES[path.extname(ctx.params.asset)];
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = await fs.readFile(path.join(dir, ctx.params.asset));
  });
  return router;
}
