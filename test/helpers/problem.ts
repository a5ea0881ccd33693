import type { ExecutionContext } from 'ava';
import type { Reply } from './client.ts';

/** Asserts an RFC 9457 problem+json reply with the given status and stable code. */
export function isProblem(t: ExecutionContext, reply: Reply, status: number, code: string) {
  t.is(reply.status, status, reply.text);
  t.is(reply.headers.get('content-type'), 'application/problem+json');
  t.like(reply.body, { type: `https://almanac.dev/problems/${code}`, status, code });
  t.is(typeof reply.body?.title, 'string');
}

/** The field paths a validation or conflict problem names, sorted. */
export const fieldPaths = (reply: Reply): string[] => (reply.body?.errors ?? []).map((e: { path: string }) => e.path).sort();
