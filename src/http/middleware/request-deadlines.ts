import type { Context, Next } from 'koa';
import { requestTimedOut, uploadStalled, type DomainError } from '../../domain/errors.ts';
import { problemBody } from '../problem.ts';

export interface RequestDeadlines {
  /** Time allowed to receive a whole request, uploads excepted (Node's requestTimeout, per route). */
  requestTimeoutMs: number;
  /** An upload whose connection is silent this long is cut; however long it takes in all is not limited. */
  uploadIdleMs: number;
  /** The routes whose bodies are uploads (src/http/route.ts `streamedBodyPaths`). */
  uploads: RegExp[];
}

/**
 * Per-route deadlines for receiving requests. Node's own requestTimeout is one value for every route, and
 * cut multi-GB uploads at 5 minutes; the server turns it off and this applies it to every route but the
 * uploads, which get an idle timeout instead: a slow upload that keeps sending goes on, a stalled one ends.
 * Either way the client hears a 408 when it can still hear anything, and the connection closes.
 */
export function requestDeadlines(deadlines: RequestDeadlines) {
  return async (ctx: Context, next: Next) => {
    const { req, res } = ctx;
    let timer: NodeJS.Timeout | undefined;
    if (deadlines.uploads.some((re) => re.test(ctx.path))) {
      req.setTimeout(deadlines.uploadIdleMs, () => cut(ctx, uploadStalled(deadlines.uploadIdleMs)));
      // The socket may serve later requests on a kept-alive connection: the idle timeout was this upload's.
      res.once('close', () => req.socket?.setTimeout(0));
    } else if (!req.complete && hasBody(req)) {
      timer = setTimeout(() => {
        if (!req.complete) cut(ctx, requestTimedOut(deadlines.requestTimeoutMs));
      }, deadlines.requestTimeoutMs);
      res.once('close', () => clearTimeout(timer));
    }
    await next();
  };
}

/**
 * A request without Content-Length or Transfer-Encoding has no body (RFC 9112 §6.3): it was received whole
 * with its headers, so it needs no deadline (most reads; a timer per read was a measurable share of them).
 */
function hasBody(req: Context['req']): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Answers 408 if nothing was answered yet, then closes the connection (the request's handler sees it aborted). */
function cut(ctx: Context, error: DomainError) {
  const { res, req } = ctx;
  if (!res.headersSent) {
    const body = JSON.stringify(problemBody(error));
    res.writeHead(error.status, {
      'Content-Type': 'application/problem+json',
      Connection: 'close',
      'X-Request-Id': String(ctx.state.requestId ?? ''),
    });
    res.end(body, () => req.socket?.destroy());
  } else {
    req.socket?.destroy();
  }
}
