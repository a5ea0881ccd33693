import fs from 'node:fs/promises';
import path from 'node:path';
import Router from '@koa/router';
import { getAbsoluteFSPath } from 'swagger-ui-dist';

const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png']);
const TYPES: Record<string, string> = { '.css': 'text/css', '.js': 'application/javascript', '.png': 'image/png' };

// The start script is a file of its own so that the page's policy can refuse every inline script.
const START_SCRIPT = `SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#ui', deepLinking: true });\n`;

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Almanac API</title>
<link rel="stylesheet" href="/api/docs/swagger-ui.css"><link rel="icon" href="/api/docs/favicon-32x32.png"></head>
<body><div id="ui"></div><script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/start.js"></script></body></html>`;

/**
 * The docs page's policy: only this server's scripts, no frame around it (clickjacking its "Try it out"
 * with a visitor's cookie). Swagger UI sets inline styles and data: images, so those are allowed; it calls
 * the API at the document's server, the public URL.
 */
const docsPolicy = (publicOrigin: string) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self' ${publicOrigin}`,
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

/** The docs page at /api/docs: Swagger UI served from the npm package, no CDN needed. */
export function docsRouter(openapi: unknown, publicUrl: string) {
  const router = new Router();
  const dir = getAbsoluteFSPath();
  const policy = docsPolicy(new URL(publicUrl).origin);
  router.get('/api/v1/openapi.json', (ctx) => {
    ctx.body = openapi;
  });
  router.get('/api/docs', (ctx) => {
    ctx.type = 'text/html';
    ctx.set('Content-Security-Policy', policy);
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.body = page;
  });
  router.get('/api/docs/start.js', (ctx) => {
    ctx.type = TYPES['.js']!;
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = START_SCRIPT;
  });
  router.get('/api/docs/:asset', async (ctx, next) => {
    if (!ASSETS.has(ctx.params.asset)) return next();
    ctx.type = TYPES[path.extname(ctx.params.asset)]!;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = await fs.readFile(path.join(dir, ctx.params.asset));
  });
  return router;
}
