import { createDocument } from 'zod-openapi';
import { z } from 'zod';
import { ERROR_CODE_NAMES, ERROR_CODES, type ErrorCode } from '../domain/errors.ts';
import { ALMANAC_VERSION } from '../version.ts';
import { routeKey, type Route } from './route.ts';

const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    code: z
      .enum(ERROR_CODE_NAMES)
      .describe(
        'Stable machine-readable code; clients branch on it. The catalogue (src/domain/errors.ts):\n' +
          ERROR_CODE_NAMES.map((code) => `- \`${code}\`: ${ERROR_CODES[code].status} ${ERROR_CODES[code].title}`).join('\n'),
      ),
    detail: z.string().optional(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details' });

/** Routes that may read or write stored files: a resource's own routes, dataset purges, the storage admin and upload target. */
const FILE_PATHS = /^\/(resources\/\{id\}|packages\/\{nameOrId\}\/purge|admin\/storage|admin\/data|storage\/)/;

/** Methods whose body the JSON parser reads (koa-body's parsedMethods), whatever the route declares. */
const PARSED_METHODS = new Set(['post', 'put', 'patch']);

/**
 * The problems a route can answer, by what it declares: every route refuses a bad API token (401, public
 * ones too: a token is checked before any route runs); a route for users or sysadmins refuses the
 * anonymous (401) and those its gate or policies turn away (403); every unsafe method refuses a
 * cross-origin request (403, the CSRF check); a body can be late (408), and a parsed one malformed or too
 * large (400, 413); query parameters can be invalid (400); a path names something that may not exist or
 * not be visible (404); a JSON body can have the wrong media type (415) or invalid fields (422); the
 * database, and for file routes the object store, can be out of reach (503). Then the route's own `problems`.
 */
export function routeProblems(r: Route): ErrorCode[] {
  const codes: ErrorCode[] = ['invalid_token'];
  if (r.access !== 'public') codes.push('unauthenticated', 'forbidden');
  if (r.method !== 'get') codes.push('forbidden');
  // A body that does not arrive whole in time is cut (src/http/middleware/request-deadlines.ts).
  if (PARSED_METHODS.has(r.method)) codes.push('request_timeout');
  if (PARSED_METHODS.has(r.method) && !r.streamedBody) {
    codes.push('malformed_json', 'malformed_body', 'bad_request', 'payload_too_large', 'unsupported_media_type');
  }
  if (r.query) codes.push('invalid_parameters');
  if (r.params) codes.push('not_found');
  if (r.body) codes.push('validation_failed');
  // Every route reads the database (a token is looked up before any runs); file routes read the store.
  codes.push('database_unavailable');
  if (FILE_PATHS.test(r.path)) codes.push('storage_unavailable');
  codes.push(...(r.problems ?? []));
  return [...new Set(codes)];
}

/**
 * What Node's HTTP parser answers, before any route runs, to a request whose line and headers pass its
 * 16 KB (a URL of huge query values, say): any request can meet it, and it carries no body.
 */
const HEADERS_TOO_LARGE = {
  '431': { description: 'Request Header Fields Too Large: the request line and headers are over 16 KB (no body)' },
};

/** One problem+json response per status, its description naming each code the route can answer with it. */
function problemResponses(codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_CODES[code].status, [...(byStatus.get(ERROR_CODES[code].status) ?? []), code]);
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => [
        String(status),
        {
          description: list.map((code) => `\`${code}\`: ${ERROR_CODES[code].title}`).join('; '),
          content: { 'application/problem+json': { schema: Problem } },
        },
      ]),
  );
}

/**
 * Input strings cannot hold NUL (PostgreSQL text cannot store one, so the routes refuse it, src/http/route.ts):
 * each input string without a pattern of its own gets one that says so. The patterns the schemas declare
 * are character classes that leave NUL out already.
 */
const NO_NUL = '^[^\\x00]*$';

/** `GET /packages/{nameOrId}` → `getPackagesByNameOrId`: stable as long as the route is. */
export function operationId(r: Pick<Route, 'method' | 'path'>) {
  const words = r.path
    .split('/')
    .filter(Boolean)
    .map((part) => {
      const param = /^\{(\w+)\}$/.exec(part);
      return param ? `By-${param[1]}` : part;
    })
    .join('-')
    // A dot too (`/profiles/site/schema.json`): an operationId is an identifier in generated clients.
    .split(/[-_.]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1));
  return r.method + words.join('');
}

/** The route's links as OpenAPI link objects, each to an operation that exists. */
function responseLinks(r: Route, known: Set<string>) {
  return Object.fromEntries(
    Object.entries(r.links ?? {}).map(([target, parameters]) => {
      if (!known.has(target)) throw new Error(`${routeKey(r)} links to ${target}, which is no route`);
      const [method, path] = target.split(' ');
      const id = operationId({ method: method!.toLowerCase() as Route['method'], path: path! });
      return [id, { operationId: id, parameters }];
    }),
  );
}

const responseHeaders = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }]));

/** OpenAPI 3.1 built from the very zod schemas the routes validate with, so the two cannot drift. */
export function buildOpenApi(routes: Route[], publicUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  const known = new Set(routes.map(routeKey));
  for (const r of routes) {
    const path = `/api/v1${r.path}`;
    const success = {
      ...(r.response
        ? {
            description: 'Success',
            content: {
              'application/json': { schema: r.response },
              ...Object.fromEntries(Object.entries(r.alternates ?? {}).map(([mediaType, { schema }]) => [mediaType, { schema }])),
            },
          }
        : { description: r.status === 202 ? 'Accepted' : 'No content' }),
      ...(r.links ? { links: responseLinks(r, known) } : {}),
    };
    const streamed = r.streamedResponse
      ? Object.fromEntries(
          Object.entries(r.streamedResponse.statuses).map(([status, description]) => [
            status,
            // A redirect carries no body worth a schema; the others are the bytes themselves.
            /^3\d\d$/.test(status)
              ? { description, headers: { Location: { schema: { type: 'string' } } } }
              : {
                  description,
                  ...(r.streamedResponse!.headers ? { headers: responseHeaders(r.streamedResponse!.headers) } : {}),
                  content: {
                    // A route that also answers JSON documents it beside the streamed types, on its success status.
                    ...(r.response && 'content' in success && Number(status) === (r.status ?? 200) ? success.content : {}),
                    ...Object.fromEntries(
                      [r.streamedResponse!.mediaType].flat().map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
                    ),
                  },
                },
          ]),
        )
      : { [String(r.response ? (r.status ?? 200) : (r.status ?? 204))]: success };
    const alsoSucceeds = Object.fromEntries(
      Object.entries(r.alsoSucceeds ?? {}).map(([status, description]) => [status, { ...success, description }]),
    );
    const requestBody = r.streamedBody
      ? { requestBody: { required: true, content: { [r.streamedBody]: { schema: { type: 'string', format: 'binary' } } } } }
      : r.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: r.body } } } }
        : {};
    paths[path] ??= {};
    paths[path][r.method] = {
      operationId: operationId(r),
      summary: r.summary,
      tags: [r.tag],
      ...(r.access === 'public' ? { security: [{}, { bearer: [] }, { session: [] }] } : {}),
      requestParams: { ...(r.params ? { path: r.params } : {}), ...(r.query ? { query: r.query } : {}) },
      ...requestBody,
      responses: { ...streamed, ...alsoSucceeds, ...problemResponses(routeProblems(r)), ...HEADERS_TOO_LARGE },
    };
  }
  return createDocument(
    {
      openapi: '3.1.0',
      info: { title: 'Almanac API', version: ALMANAC_VERSION, description: 'Data catalog REST API' },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'API token (alm_…)' },
          session: { type: 'apiKey', in: 'cookie', name: 'almanac_session' },
        },
      },
      security: [{ bearer: [] }, { session: [] }],
      paths: paths as never,
    },
    {
      override: ({ jsonSchema, io }) => {
        const free = jsonSchema.pattern === undefined && jsonSchema.enum === undefined && jsonSchema.const === undefined;
        if (io === 'input' && jsonSchema.type === 'string' && free) jsonSchema.pattern = NO_NUL;
      },
    },
  );
}
