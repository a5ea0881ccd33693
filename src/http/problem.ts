import type { Context } from 'koa';
import type { FieldError } from '../domain/errors.ts';

export const PROBLEM_BASE = 'https://almanac.dev/problems/';

export interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail?: string;
  errors?: FieldError[];
  instance?: string;
}

/** Writes an RFC 9457 problem details body. */
export function sendProblem(
  ctx: Context,
  p: { status: number; code: string; title: string; detail?: string; errors?: FieldError[] },
  headers: Record<string, string> = {},
) {
  const body: Problem = {
    type: PROBLEM_BASE + p.code,
    title: p.title,
    status: p.status,
    code: p.code,
    ...(p.detail ? { detail: p.detail } : {}),
    ...(p.errors?.length ? { errors: p.errors } : {}),
  };
  for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
  ctx.status = p.status;
  ctx.type = 'application/problem+json';
  ctx.body = body;
}
