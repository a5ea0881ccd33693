import type { Middleware } from 'koa';
import { ZodError } from 'zod';
import { DomainError } from '../../domain/errors.ts';
import { sendProblem } from '../problem.ts';
import { fieldErrors } from '../validate.ts';

interface HttpishError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
  message?: string;
}

/**
 * Turns every failure into problem+json. Domain errors carry their own status and code; body-parser
 * errors become 400/413; anything else is a 500 whose message stays in the log, never in the response.
 */
export const problemErrors: Middleware = async (ctx, next) => {
  try {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      sendProblem(ctx, { status: 404, code: 'not_found', title: 'Not found', detail: `No route matches ${ctx.method} ${ctx.path}.` });
    }
  } catch (err) {
    if (err instanceof DomainError) {
      sendProblem(ctx, { status: err.status, code: err.code, title: err.title, detail: err.message, errors: err.errors }, err.headers);
      return;
    }
    if (err instanceof ZodError) {
      sendProblem(ctx, { status: 422, code: 'validation_failed', title: 'Validation failed', errors: fieldErrors(err) });
      return;
    }
    const e = err as HttpishError;
    const status = e.status ?? e.statusCode;
    if (status === 413 || e.type === 'entity.too.large') {
      sendProblem(ctx, { status: 413, code: 'payload_too_large', title: 'Payload too large', detail: 'The request body is larger than this endpoint accepts.' });
      return;
    }
    if (e.type === 'entity.parse.failed' || err instanceof SyntaxError || status === 400) {
      sendProblem(ctx, { status: 400, code: 'malformed_json', title: 'Malformed request body', detail: 'The body is not valid JSON.' });
      return;
    }
    if (status === 405 || status === 501) {
      sendProblem(ctx, { status, code: 'method_not_allowed', title: 'Method not allowed', detail: `${ctx.method} is not allowed on ${ctx.path}.` });
      return;
    }
    ctx.log.error({ err }, 'unhandled error');
    sendProblem(ctx, {
      status: 500,
      code: 'internal_error',
      title: 'Internal server error',
      detail: `Something went wrong on our side; quote request id ${ctx.state.requestId} when reporting it.`,
    });
  }
};
