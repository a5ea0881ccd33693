import type { Context, Next } from 'koa';
import { badRequest } from '../../domain/errors.ts';

/** No request body of the API nests deeper than a few levels; 32 leaves room and keeps recursion safe. */
export const MAX_JSON_DEPTH = 32;

/**
 * Refuses a JSON body nested deeper than MAX_JSON_DEPTH. JSON.parse takes any depth, but what handles the
 * value next (validation, logging, JSON.stringify) recurses, and a body of a million `[` overflows the stack.
 * Measured without recursion, before anything else sees the body.
 */
export async function limitJsonDepth(ctx: Context, next: Next) {
  if (depthExceeds(ctx.request.body, MAX_JSON_DEPTH)) {
    throw badRequest(`The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`);
  }
  await next();
}

/** Whether a parsed value nests deeper than `max`, measured without recursion. */
export function depthExceeds(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}
