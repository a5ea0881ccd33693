import type { Context } from 'koa';
import type { Config } from '../../config.ts';
import type { DomainError } from '../../domain/errors.ts';
import type { ErrorSender } from '../../http/middleware/errors.ts';
import { CkanKeyedError } from './ckan-keys.ts';
import { ckanErrorFields } from './error-fields.ts';
import { ckanActionName } from './paths.ts';

/**
 * CKAN's response envelopes (ckan/views/api.py): `{help, success: true, result}`, and on failure
 * `{help, success: false, error: {__type, message}}` with CKAN's status per type. Almanac's domain errors
 * are mapped here, by code, so a rule fails the same way on every entry point.
 */

/** Where CKAN points a client for an action's documentation: on the configured public URL, never the Host a client sent. */
const helpUrl = (site: string, action: string) => `${site}/api/3/action/help_show?name=${encodeURIComponent(action)}`;

/** Writes a body as `application/json` exactly (Koa would add a charset to an object body). */
export function sendJson(ctx: Context, status: number, body: unknown) {
  ctx.status = status;
  ctx.set('Content-Type', 'application/json');
  ctx.body = JSON.stringify(body);
}

export function sendResult(ctx: Context, site: string, action: string, result: unknown) {
  sendJson(ctx, 200, { help: helpUrl(site, action), success: true, result });
}

type CkanErrorBody = { __type: string; message?: string } & Record<string, unknown>;

/**
 * A validation error's fields as CKAN's `{field: [message, ...]}`, under CKAN's keys (error-fields.ts);
 * those of a CkanKeyedError are CKAN's keys already.
 */
function fieldMessages(err: DomainError): Record<string, unknown> {
  if (!(err instanceof CkanKeyedError)) return ckanErrorFields(err.errors ?? []);
  const fields: Record<string, string[]> = {};
  for (const e of err.errors ?? []) (fields[e.path || 'message'] ??= []).push(e.message);
  return fields;
}

/** CKAN's error type, status and body for an Almanac domain error. */
export function ckanError(err: DomainError): { status: number; error: CkanErrorBody } {
  switch (err.code) {
    case 'not_found':
    case 'no_preview':
    case 'not_queryable':
      return { status: 404, error: { __type: 'Not Found Error', message: `Not found: ${err.message}` } };
    case 'unauthenticated':
    case 'invalid_token':
    case 'invalid_credentials':
    case 'forbidden':
      return { status: 403, error: { __type: 'Authorization Error', message: `Access denied: ${err.message}` } };
    // A harvested dataset's lock, a taken name, a draft not ready to publish: CKAN's validators refuse the like.
    case 'invalid_parameters':
    case 'validation_failed':
    case 'query_invalid':
    case 'query_not_select':
    case 'query_too_long':
    case 'harvested_dataset':
    case 'conflict':
    case 'publish_requirements_missing':
      return { status: 409, error: { ...fieldMessages(err), __type: 'Validation Error', message: err.message } };
    case 'unsupported_filter':
      return { status: 400, error: { __type: 'Search Query Error', message: `Search Query is invalid: ${err.message}` } };
    case 'bad_request':
    case 'malformed_json':
    case 'malformed_body':
    case 'method_not_allowed':
    case 'unsupported_media_type':
      return { status: 400, error: { __type: 'Bad Request', message: `Bad request - ${err.message}` } };
    default:
      return { status: err.status, error: { __type: err.status >= 500 ? 'Internal Server Error' : err.title, message: err.message } };
  }
}

/** Writes a domain error in CKAN's error envelope, with its headers (Retry-After, ...): the CKAN paths' ErrorSender. */
export const ckanErrorSender =
  (site: string): ErrorSender =>
  (ctx, err, headers = {}) => {
    const { status, error } = ckanError(err);
    for (const [k, v] of Object.entries({ ...err.headers, ...headers })) ctx.set(k, v);
    sendJson(ctx, status, { help: helpUrl(site, ckanActionName(ctx.path) ?? 'help_show'), success: false, error });
  };

/** The site's root as CKAN names it (`site_url`): the public URL without a trailing slash. */
export const ckanSiteUrl = (config: Config) => config.http.publicUrl.replace(/\/$/, '');
