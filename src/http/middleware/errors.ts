import { DriverException } from '@mikro-orm/core';
import type { Context, Middleware } from 'koa';
import pg from 'pg';
import {
  DomainError,
  badRequest,
  databaseUnavailable,
  storageUnavailable,
  internalError,
  malformedBody,
  malformedJson,
  methodNotAllowed,
  payloadTooLarge,
  routeNotFound,
  unsupportedMediaType,
} from '../../domain/errors.ts';
import { isDatabaseDown } from '../../net/backend-outage.ts';
import { sendProblem } from '../problem.ts';
import { StorageUnavailableError } from '../../storage/object-store.ts';

interface HttpError {
  status?: number;
  expose?: boolean;
  message?: string;
  code?: unknown;
}

/** The client errors Koa's body parser and router raise, by status, as catalogued errors. */
function clientError(ctx: Context, status: number, e: HttpError): DomainError {
  const detail = e.expose ? e.message : undefined;
  switch (status) {
    case 405:
    case 501:
      return methodNotAllowed(ctx.method, ctx.path);
    case 413:
      return payloadTooLarge(detail);
    case 415:
      return unsupportedMediaType(detail);
    default:
      return badRequest(detail);
  }
}

/** Writes a catalogued error in some wire format (problem+json; CKAN's envelope on the CKAN paths). */
export type ErrorSender = (ctx: Context, err: DomainError, headers?: Record<string, string>) => void;

/**
 * Turns every failure into an error answer written by `send`. Domain errors carry their own status and
 * code; the client errors Koa's body parser and router raise keep their status; anything else is a 500
 * whose details stay in the log, never in the response.
 */
export const errorAnswers =
  (send: ErrorSender): Middleware =>
  async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        send(ctx, routeNotFound(ctx.method, ctx.path));
      }
      // The router's answer to a method a path does not serve (501 for one it knows nowhere, TRACE say):
      // 405 with the methods it does serve in Allow, or 404 when no route has that path at all.
      if ((ctx.status === 405 || ctx.status === 501) && ctx.body == null) {
        const allow = ctx.response.get('Allow');
        send(ctx, allow ? methodNotAllowed(ctx.method, ctx.path) : routeNotFound(ctx.method, ctx.path), allow ? { Allow: allow } : {});
      }
    } catch (err) {
      if (err instanceof DomainError) {
        send(ctx, err);
        return;
      }
      const e = err as HttpError;
      // co-body marks its JSON.parse failure with status 400.
      if (err instanceof SyntaxError && e.status === 400) {
        send(ctx, malformedJson());
        return;
      }
      // Koa's body parser and router put a 4xx status on the client errors they find.
      const status = e.status && e.status >= 400 && e.status < 500 ? e.status : e.status === 501 ? 501 : undefined;
      if (status) {
        send(ctx, clientError(ctx, status, e));
        return;
      }
      // A body that claims gzip or deflate but does not inflate.
      if (typeof e.code === 'string' && e.code.startsWith('Z_')) {
        send(ctx, malformedBody());
        return;
      }
      // An engine out of reach is an outage to wait out (503), not a bug; the log still says which and why.
      if (err instanceof StorageUnavailableError || isDatabaseDown(err)) {
        ctx.log.warn({ err: { type: (err as Error).name, message: (err as Error).message } }, 'a part of the service is unreachable');
        send(ctx, err instanceof StorageUnavailableError ? storageUnavailable() : databaseUnavailable());
        return;
      }
      logUnhandled(ctx, err);
      send(ctx, internalError(ctx.state.requestId));
    }
  };

/** Every failure as problem+json (RFC 9457). */
export const problemErrors = errorAnswers(sendProblem);

/** A database error's message holds the SQL with its bound values (password hashes, say): log only what names the failure. */
function logUnhandled(ctx: Context, err: unknown) {
  // MikroORM wraps driver errors; raw queries surface pg's own DatabaseError.
  if (err instanceof DriverException || err instanceof pg.DatabaseError) {
    const { code, table, constraint, routine } = err as Error & Record<string, string | undefined>;
    const stack = err.stack
      ?.split('\n')
      .filter((line) => line.trim().startsWith('at '))
      .join('\n');
    ctx.log.error({ err: { type: err.name, code, table, constraint, routine, stack } }, 'unhandled error');
    return;
  }
  ctx.log.error({ err }, 'unhandled error');
}
