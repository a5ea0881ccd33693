import type { Middleware } from 'koa';

/**
 * Which of the document's paths a request path is, the way OpenAPI matches them: "concrete paths are
 * matched before their templated counterparts", so `/resources/count` is never `/resources/{id}` with
 * the id `count`. Between two templates, the one whose first differing segment is concrete wins
 * (`/packages/drafts/x` before `/packages/{id}/x`). Segments compare as the router compares them: case
 * aside, a trailing slash aside.
 */
export class PathTemplates {
  private readonly templates: { path: string; segments: (string | null)[] }[];

  constructor(paths: Iterable<string>) {
    this.templates = [...new Set(paths)]
      .map((path) => ({ path, segments: segmentsOf(path).map((s) => (/^\{\w+\}$/.test(s) ? null : s.toLowerCase())) }))
      .sort((a, b) => precedence(a.segments, b.segments));
  }

  /** The template that answers `path`, or undefined when none has its shape. */
  match(path: string): string | undefined {
    const segments = segmentsOf(path);
    const found = this.templates.find(
      (t) =>
        t.segments.length === segments.length &&
        t.segments.every((s, i) => (s === null ? segments[i] !== '' : s === segments[i]!.toLowerCase())),
    );
    return found?.path;
  }
}

const segmentsOf = (path: string) => path.replace(/\/$/, '').split('/').slice(1);

/** Concrete before templated, segment by segment from the left; then the order they came in (a stable sort). */
function precedence(a: (string | null)[], b: (string | null)[]) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if ((a[i] === null) !== (b[i] === null)) return a[i] === null ? 1 : -1;
  }
  return 0;
}

/**
 * The answer to a method a path does not serve, from the document's own methods for the path the request
 * is (replacing the router's, which would merge the methods of every pattern the path fits): OPTIONS is
 * 200 and any other method 405, with `Allow` listing what the document declares (HEAD with GET). A path
 * that is none of the document's is left alone (404).
 */
export function allowedMethods(routes: { method: string; path: string }[], prefix: string): Middleware {
  const templates = new PathTemplates(routes.map((r) => r.path));
  const allow = new Map<string, string[]>();
  for (const r of routes) {
    const methods = allow.get(r.path) ?? [];
    if (r.method === 'get') methods.push('HEAD');
    methods.push(r.method.toUpperCase());
    allow.set(r.path, methods);
  }
  const prefixed = new RegExp(`^${prefix.replace(/[.*+?^$()|[\]\\]/g, '\\$&')}(?=/)`, 'i');
  return async (ctx, next) => {
    await next();
    if (ctx.status !== 404 || ctx.body != null || !prefixed.test(ctx.path)) return;
    const template = templates.match(ctx.path.slice(prefix.length));
    if (template === undefined) return;
    ctx.set('Allow', allow.get(template)!.join(', '));
    if (ctx.method === 'OPTIONS') {
      ctx.status = 200;
      ctx.body = '';
    } else {
      ctx.status = 405;
    }
  };
}
