import type { Context } from 'koa';
import type { DomainError, FieldError } from '../domain/errors.ts';

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

/** Writes a catalogued error (src/domain/errors.ts) as an RFC 9457 problem details body, with its headers. */
export function sendProblem(ctx: Context, p: DomainError, headers: Record<string, string> = {}) {
  const body = problemBody(p);
  for (const [k, v] of Object.entries({ ...p.headers, ...headers })) ctx.set(k, v);
  ctx.status = p.status;
  ctx.type = 'application/problem+json';
  ctx.body = body;
}

/** The RFC 9457 body of a catalogued error. */
export const problemBody = (p: DomainError): Problem => ({
  type: PROBLEM_BASE + p.code,
  title: p.title,
  status: p.status,
  code: p.code,
  ...(p.message ? { detail: p.message } : {}),
  ...(p.errors?.length ? { errors: p.errors } : {}),
});
