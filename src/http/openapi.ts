import { createDocument } from 'zod-openapi';
import { z } from 'zod';
import { ERROR_CODE_NAMES, ERROR_CODES } from '../domain/errors.ts';
import { ALMANAC_VERSION } from '../version.ts';
import type { Route } from './route.ts';

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

const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: Problem } } });

/** OpenAPI 3.1 built from the very zod schemas the routes validate with, so the two cannot drift. */
export function buildOpenApi(routes: Route[], publicUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = `/api/v1${r.path}`;
    const success = r.response
      ? { description: 'Success', content: { 'application/json': { schema: r.response } } }
      : { description: r.status === 202 ? 'Accepted' : 'No content' };
    const streamed = r.streamedResponse
      ? Object.fromEntries(
          Object.entries(r.streamedResponse.statuses).map(([status, description]) => [
            status,
            { description, content: { [r.streamedResponse!.mediaType]: { schema: { type: 'string', format: 'binary' } } } },
          ]),
        )
      : { [String(r.response ? (r.status ?? 200) : (r.status ?? 204))]: success };
    const requestBody = r.streamedBody
      ? { requestBody: { required: true, content: { [r.streamedBody]: { schema: { type: 'string', format: 'binary' } } } } }
      : r.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: r.body } } } }
        : {};
    paths[path] ??= {};
    paths[path][r.method] = {
      summary: r.summary,
      tags: [r.tag],
      ...(r.access === 'public' ? { security: [] } : {}),
      requestParams: { ...(r.params ? { path: r.params } : {}), ...(r.query ? { query: r.query } : {}) },
      ...requestBody,
      responses: {
        ...streamed,
        ...(r.query ? { '400': problem('Invalid query parameters') } : {}),
        ...(r.access !== 'public' ? { '401': problem('Not authenticated'), '403': problem('Not permitted') } : {}),
        ...(r.params ? { '404': problem('Not found') } : {}),
        ...(r.body ? { '422': problem('Validation failed, with one entry per field in errors') } : {}),
      },
    };
  }
  return createDocument({
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
  });
}
