import { DriverException } from '@mikro-orm/core';
import type { Context, Middleware } from 'koa';
import pg from 'pg';
import { DomainError } from '../../domain/errors.ts';
import { sendProblem } from '../problem.ts';

interface HttpError {
  status?: number;
  expose?: boolean;
  message?: string;
  code?: unknown;
}

const GENERIC_4XX: Record<number, { code: string; title: string }> = {
  400: { code: 'bad_request', title: 'Bad request' },
  405: { code: 'method_not_allowed', title: 'Method not allowed' },
  413: { code: 'payload_too_large', title: 'Payload too large' },
  415: { code: 'unsupported_media_type', title: 'Unsupported media type' },
  501: { code: 'method_not_allowed', title: 'Method not allowed' },
};

/**
 * Turns every failure into problem+json. Domain errors carry their own status and code; the client
 * errors Koa's body parser and router raise keep their status; anything else is a 500 whose details
 * stay in the log, never in the response.
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
    const e = err as HttpError;
    // co-body marks its JSON.parse failure with status 400.
    if (err instanceof SyntaxError && e.status === 400) {
      sendProblem(ctx, { status: 400, code: 'malformed_json', title: 'Malformed request body', detail: 'The body is not valid JSON.' });
      return;
    }
    // Koa's body parser and router put a 4xx status on the client errors they find.
    const status = e.status && e.status >= 400 && e.status < 500 ? e.status : e.status === 501 ? 501 : undefined;
    if (status) {
      const generic = GENERIC_4XX[status] ?? { code: 'bad_request', title: 'Bad request' };
      const detail = status === 405 || status === 501 ? `${ctx.method} is not allowed on ${ctx.path}.` : e.expose ? e.message : undefined;
      sendProblem(ctx, { status, ...generic, detail: detail ?? generic.title });
      return;
    }
    // A body that claims gzip or deflate but does not inflate.
    if (typeof e.code === 'string' && e.code.startsWith('Z_')) {
      sendProblem(ctx, { status: 400, code: 'malformed_body', title: 'Malformed request body', detail: 'The body does not match its Content-Encoding.' });
      return;
    }
    logUnhandled(ctx, err);
    sendProblem(ctx, {
      status: 500,
      code: 'internal_error',
      title: 'Internal server error',
      detail: `Something went wrong on our side; quote request id ${ctx.state.requestId} when reporting it.`,
    });
  }
};

/** A database error's message holds the SQL with its bound values (password hashes, say): log only what names the failure. */
function logUnhandled(ctx: Context, err: unknown) {
  // MikroORM wraps driver errors; raw queries surface pg's own DatabaseError.
  if (err instanceof DriverException || err instanceof pg.DatabaseError) {
    const { code, table, constraint, routine } = err as Error & Record<string, string | undefined>;
    const stack = err.stack?.split('\n').filter((line) => line.trim().startsWith('at ')).join('\n');
    ctx.log.error({ err: { type: err.name, code, table, constraint, routine, stack } }, 'unhandled error');
    return;
  }
  ctx.log.error({ err }, 'unhandled error');
}
