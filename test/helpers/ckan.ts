import type { Auth, ApiClient, Reply } from './client.ts';

/** The Action API's base path. */
export const ACTION = '/api/3/action';

/** GET /api/3/action/{name} with `params` as a query string (arrays as repeated keys). */
export function ckanGet(api: ApiClient, action: string, params: Record<string, string | number | boolean | string[]> = {}, auth?: Auth) {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) for (const item of Array.isArray(v) ? v : [v]) qs.append(k, String(item));
  const query = qs.toString();
  return api.get(`${ACTION}/${action}${query ? `?${query}` : ''}`, auth);
}

/** POST /api/3/action/{name} with `params` as the JSON body. */
export const ckanPost = (api: ApiClient, action: string, params: Record<string, unknown> = {}, auth?: Auth) =>
  api.post(`${ACTION}/${action}`, params, auth);

/** The result of a successful call, or a thrown error with the reply, so a setup step fails loudly. */
export function resultOf(reply: Reply) {
  if (reply.status !== 200 || reply.body?.success !== true) throw new Error(`CKAN call failed: ${reply.status} ${reply.text}`);
  return reply.body.result;
}

/** Names of a package_search result, in order. */
export const resultNames = (reply: Reply): string[] => resultOf(reply).results.map((p: { name: string }) => p.name);
