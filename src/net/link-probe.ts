import http from 'node:http';
import { FetchError, FetchFailedError, FetchTimeoutError, safeFetch } from './safe-fetch.ts';

export const LINK_STATUSES = ['ok', 'broken', 'timeout'] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];

export interface LinkProbe {
  status: LinkStatus;
  /** The final HTTP status after redirects; null when no answer came. */
  httpStatus: number | null;
  latencyMs: number;
  /** Why the link is not ok: the HTTP status, the refusal or the network failure. */
  error: string | null;
}

/**
 * Checks that a link answers: HEAD first (no body to download), GET when the server refuses HEAD (405,
 * 501) or drops the connection. A 2xx or 3xx is ok; the whole check, both requests and all redirects,
 * gets `timeoutMs`.
 */
export async function probeLink(url: string, opts: { timeoutMs: number; allowPrivateNetworks?: boolean }): Promise<LinkProbe> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const attempt = async (method: 'HEAD' | 'GET') => {
    const timeoutMs = Math.max(1, Math.round(started + opts.timeoutMs - performance.now()));
    const res = await safeFetch(url, { method, timeoutMs, allowPrivateNetworks: opts.allowPrivateNetworks, maxBytes: 0 });
    res.discard();
    return res.status;
  };
  try {
    let status: number;
    try {
      status = await attempt('HEAD');
    } catch (err) {
      // A name that does not resolve will not resolve for GET either.
      if (!(err instanceof FetchFailedError) || err.code === 'ENOTFOUND') throw err;
      status = await attempt('GET');
    }
    if (status === 405 || status === 501) status = await attempt('GET');
    const ok = status >= 200 && status < 400;
    const error = ok ? null : `HTTP ${status}${http.STATUS_CODES[status] ? ` ${http.STATUS_CODES[status]}` : ''}`;
    return { status: ok ? 'ok' : 'broken', httpStatus: status, latencyMs: elapsed(), error };
  } catch (err) {
    if (err instanceof FetchTimeoutError) return { status: 'timeout', httpStatus: null, latencyMs: elapsed(), error: err.message };
    if (err instanceof FetchError) return { status: 'broken', httpStatus: null, latencyMs: elapsed(), error: err.message };
    throw err;
  }
}
