import type { ExecutionContext } from 'ava';
import type { ApiClient, Auth } from './client.ts';
import { isProblem } from './problem.ts';

/** One request: method, path and, for a write, its body. */
export type Call = readonly [method: string, path: string, body?: unknown];

/**
 * Asserts that every call is for sysadmins only: 401 without credentials, 403 with each of `others`
 * (a normal user's token, their session cookie, …).
 */
export async function onlySysadmins(t: ExecutionContext, api: ApiClient, calls: readonly Call[], others: readonly Auth[]) {
  for (const [method, path, body] of calls) {
    isProblem(t, await api.request(method, path, body), 401, 'unauthenticated');
    for (const auth of others) isProblem(t, await api.request(method, path, body, auth), 403, 'forbidden');
  }
}
