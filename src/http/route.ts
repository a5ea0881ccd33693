import type Router from '@koa/router';
import type { Context } from 'koa';
import { z, type ZodObject, type ZodType } from 'zod';
import type { Actor } from '../domain/actor.ts';
import type { DomainContext } from '../domain/context.ts';
import {
  DomainError,
  type ErrorCode,
  type FieldError,
  invalidParameters,
  notFound,
  unsupportedMediaType,
  validationFailed,
} from '../domain/errors.ts';
import { unstorableAt } from '../domain/unstorable-text.ts';
import { auditedRunner } from '../policies/audited-runner.ts';
import { authorize } from '../policies/index.ts';
import { PathTemplates } from './path-precedence.ts';
import { sendProblem } from './problem.ts';
import { fieldErrors } from './validate.ts';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** Who may call: checked first (through src/policies) and shown in the docs; the domain applies the finer rules. */
export type Access = 'public' | 'user' | 'sysadmin';

type Infer<T> = T extends ZodType ? z.output<T> : undefined;

export interface RouteInput<P, Q, B> {
  params: Infer<P>;
  query: Infer<Q>;
  body: Infer<B>;
  actor: Actor;
  domain: DomainContext;
  ctx: Context;
}

/**
 * What a handler may return: exactly what its response schema accepts, so what is sent and what the
 * OpenAPI document promises are tied at compile time (and checked at run time in the test suite).
 * A route without a schema answers 204 (undefined) or streams its own response.
 */
type Reply<R> = R extends ZodType ? z.input<R> : void;

export interface Route<
  P extends ZodObject | undefined = any,
  Q extends ZodObject | undefined = any,
  B extends ZodType | undefined = any,
  R extends ZodType | undefined = any,
> {
  method: Method;
  /** OpenAPI style: `/organizations/{nameOrId}`. */
  path: string;
  summary: string;
  tag: string;
  access: Access;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * The body is the raw bytes, left unread for the handler to stream (`ctx.req`); the value documents its
   * media type.
   */
  streamedBody?: string;
  /**
   * The handler writes the response itself (a file stream, a redirect); documented with these statuses,
   * media types and headers. With a `response` as well, a handler that returns a value answers JSON
   * instead (a query's result, unless an export format is asked for).
   */
  streamedResponse?: { mediaType: string | string[]; statuses: Record<number, string>; headers?: Record<string, string> };
  /** Status of a successful response (a handler may set ctx.state.status); returning undefined answers 204. */
  status?: number;
  /** Other statuses of a success, which the handler sets in ctx.state.status, with what each means: `{ 201: 'Added' }`. */
  alsoSucceeds?: Record<number, string>;
  /**
   * The problems this route's own rules can answer beyond those every route of its shape can, which
   * src/http/openapi.ts derives from its access, method, params, query and body: `conflict` for a
   * duplicate, `jobs_unavailable` where it starts a background job. The OpenAPI document declares them.
   */
  problems?: ErrorCode[];
  response?: R;
  /**
   * What a client can call next with what this route answered, as OpenAPI links on its success (tools
   * such as Schemathesis follow them): target route → its parameters as runtime expressions,
   * `{ 'GET /packages/{nameOrId}': { nameOrId: '$response.body#/id' } }`.
   */
  links?: Record<string, Record<string, string>>;
  /** Why this route's action needs no authorization rule (the self-check audit asks every other one). */
  noPolicy?: string;
  /**
   * Other representations of the success, which a client chooses with Accept (JSON stays the default):
   * media type → its schema (documented beside `response`, checked under self-check like it) and how the
   * handler's JSON value becomes it. `{ 'application/ld+json': { schema, render: (record) => ... } }`.
   */
  alternates?: Record<string, Alternate<R, P, Q, B>>;
  handle(input: RouteInput<P, Q, B>): Promise<Reply<R>>;
}

export interface Alternate<R, P = any, Q = any, B = any> {
  schema: ZodType;
  render(result: Reply<R>, input: RouteInput<P, Q, B>): unknown;
}

export const defineRoute = <
  P extends ZodObject | undefined = undefined,
  Q extends ZodObject | undefined = undefined,
  B extends ZodType | undefined = undefined,
  R extends ZodType | undefined = undefined,
>(
  route: Route<P, Q, B, R>,
) => route;

/** A path that does not parse names nothing that exists. */
function parseParams<T extends ZodObject>(schema: T, raw: unknown): z.output<T> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success || unstorableAt(raw) !== undefined) throw notFound('The resource');
  return parsed.data;
}

/** Validates with zod and refuses text nothing can store; `fail` turns the field errors into the right problem. */
function parseInput<T extends ZodType>(schema: T, raw: unknown, fail: (errors: FieldError[]) => DomainError): z.output<T> {
  const parsed = schema.safeParse(raw);
  const unstorable = unstorableAt(raw);
  if (parsed.success && unstorable === undefined) return parsed.data;
  const errors = parsed.success ? [] : fieldErrors(parsed.error);
  if (unstorable !== undefined) errors.push(unstorable);
  throw fail(errors);
}

const invalidBody = (errors: FieldError[]) => validationFailed(errors, 'The request body has invalid fields.');

/**
 * Registers routes on a Koa router: parse (zod) → handler → present. With `selfCheck` (the test
 * suite turns it on) every JSON response is checked against the route's response schema before it is
 * sent, undeclared fields included: a mismatch is a 500 and an error log line naming the route, so the
 * OpenAPI document the schemas generate stays true.
 */
export function mountRoutes(router: Router, routes: Route[], opts: { selfCheck?: boolean; selfCheckReport?: string } = {}) {
  const selfCheck = opts.selfCheck ?? false;
  const run = auditedRunner({ selfCheck, selfCheckReport: opts.selfCheckReport });
  // The router tries every pattern a path fits; the route answers only when its path is the one OpenAPI
  // picks (`/resources/count`, not `/resources/{id}`), else it passes the request on (405 from allowedMethods).
  const templates = new PathTemplates(routes.map((r) => r.path));
  const prefix = router.opts.prefix ?? '';
  for (const route of routes) {
    const koaPath = route.path.replace(/\{(\w+)\}/g, ':$1');
    const unit = { key: routeKey(route), noPolicy: route.noPolicy };
    // The route's own parsing refuses unstorable text (404 in a path, 400 in a query, 422 in a body), so no `inputs`.
    router[route.method](koaPath, (ctx, next) =>
      templates.match(ctx.path.slice(prefix.length)) === route.path
        ? run(unit, () => answer(route, ctx, selfCheck), { refuse: (err) => sendProblem(ctx, err) })
        : next(),
    );
  }
}

/** One request of a route, answered: its value checked against the schemas under self-check, then written. */
async function answer(route: Route, ctx: Context, selfCheck: boolean) {
  const result = await handleRoute(route, ctx);
  const streamed = route.streamedResponse !== undefined && result === undefined;
  if (selfCheck && !streamed && result !== undefined) checkResponse(route, result);
  const alternate = result === undefined ? undefined : chosenAlternate(route, ctx);
  const body = alternate ? alternate.render(result, routeInput(route, ctx)) : result;
  if (selfCheck && alternate) checkResponse(route, body, alternate.schema);
  if (streamed) return;
  if (result === undefined) {
    ctx.status = 204;
    return;
  }
  ctx.status = ctx.state.status ?? route.status ?? 200;
  ctx.body = body;
  if (alternate) ctx.type = alternate.mediaType;
}

/** Gate, parse, act: what a request of this route does, up to the value it answers with. */
async function handleRoute(route: Route, ctx: Context) {
  // Who may call at all is settled before the input is read: an anonymous caller learns 401, not
  // which fields would be wrong. Finer rules are the domain's, through the same policies.
  if (route.access === 'user') authorize(ctx.state.actor, 'self:manage');
  if (route.access === 'sysadmin') authorize(ctx.state.actor, 'site:administer');
  const params = route.params ? parseParams(route.params, ctx.params) : undefined;
  const query = route.query ? parseInput(route.query, normaliseQuery(ctx.query), invalidParameters) : undefined;
  let body;
  if (route.body) {
    if (ctx.request.length && !ctx.request.is('application/json', 'application/*+json')) {
      throw unsupportedMediaType();
    }
    body = parseInput(route.body, ctx.request.body, invalidBody);
  }
  return route.handle({ params, query, body, actor: ctx.state.actor, domain: ctx.state.domain, ctx });
}

/** The alternate representation the Accept header prefers over JSON, if any; such routes vary on Accept. */
function chosenAlternate(route: Route, ctx: Context) {
  if (!route.alternates) return undefined;
  ctx.vary('Accept');
  const chosen = ctx.accepts('application/json', ...Object.keys(route.alternates));
  const alternate = typeof chosen === 'string' ? route.alternates[chosen] : undefined;
  return alternate ? { ...alternate, mediaType: chosen as string } : undefined;
}

/** What `render` of an alternate is given: the request as the handler saw it (parsed again: it cannot fail now). */
function routeInput(route: Route, ctx: Context): RouteInput<any, any, any> {
  return {
    params: route.params ? route.params.parse(ctx.params) : undefined,
    query: route.query ? route.query.parse(normaliseQuery(ctx.query)) : undefined,
    body: undefined,
    actor: ctx.state.actor,
    domain: ctx.state.domain,
    ctx,
  };
}

export class ResponseMismatch extends Error {}

/** `GET /packages/{nameOrId}`: how the self-check report names a route. */
export const routeKey = (route: Pick<Route, 'method' | 'path'>) => `${route.method.toUpperCase()} ${route.path}`;

/** The response as JSON, checked against the schema, and nothing more than the schema declares. */
function checkResponse(route: Route, result: unknown, schema = route.response) {
  const where = routeKey(route);
  if (!schema) throw new ResponseMismatch(`${where} declares no response body but its handler returned one`);
  const sent = JSON.parse(JSON.stringify(result));
  const parsed = schema.safeParse(sent);
  if (!parsed.success) throw new ResponseMismatch(`${where}: the response does not match its schema: ${z.prettifyError(parsed.error)}`);
  if (canonical(parsed.data) !== canonical(sent)) {
    throw new ResponseMismatch(`${where}: the response carries fields its schema does not declare: ${canonical(sent)}`);
  }
}

/** JSON with object keys sorted, to compare two values regardless of key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** `tags[]=a&tags[]=b` and `tags=a&tags=b` both arrive as `tags: [a, b]`. */
function normaliseQuery(query: Record<string, string | string[] | undefined>) {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    const name = key.endsWith('[]') ? key.slice(0, -2) : key;
    const prev = out[name];
    out[name] = prev === undefined ? value : ([] as string[]).concat(prev, value);
  }
  return out;
}

/** Full paths of the routes whose bodies their handlers stream, as patterns. */
export function streamedBodyPaths(routes: Route[], prefix = '/api/v1'): RegExp[] {
  return routes
    .filter((r) => r.streamedBody)
    .map((r) => new RegExp(`^${prefix}${r.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`));
}
