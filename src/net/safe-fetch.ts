import { promises as dns } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { Readable } from 'node:stream';
import { classifyAddress, describeAddressClass, isAllowedAddress } from './address-class.ts';

/**
 * Outbound HTTP for URLs that users supply (link checks, link downloads), safe against server-side
 * request forgery: only http and https, every hop's host resolved and checked against
 * src/net/address-class.ts, the connection pinned to the address that was checked (a second DNS answer
 * cannot swap in 127.0.0.1), redirects followed by hand and re-checked, one deadline over the whole
 * exchange, and an optional cap on the body.
 */
/** Whether private addresses may be reached: always, never, or for the URLs a rule accepts. */
export type PrivateNetworks = boolean | ((url: URL) => boolean);

export interface SafeFetchOptions {
  method?: 'GET' | 'HEAD';
  headers?: Record<string, string>;
  /** Covers every lookup, connection, redirect and the body. */
  timeoutMs: number;
  /** Hops followed before giving up; 5 unless told. */
  maxRedirects?: number;
  /** Body bytes kept; past them the body ends early and `truncated` turns true. */
  maxBytes?: number;
  /**
   * Lets requests reach private, loopback and link-local addresses (tests; a harvest source's own host);
   * metadata addresses stay refused. A function decides per hop, redirects included.
   */
  allowPrivateNetworks?: PrivateNetworks;
  signal?: AbortSignal;
}

export interface SafeResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The URL that answered, after redirects. */
  url: string;
  /** Each redirect target, in order. */
  redirects: string[];
  /** The IP address the final request's connection went to. */
  address: string;
  /** The body, at most `maxBytes`; errors with a FetchTimeoutError if the deadline passes while reading. */
  body: Readable;
  /** True once the body ended early at `maxBytes`. */
  readonly truncated: boolean;
  /** Reads the (capped) body. */
  bytes(): Promise<Buffer>;
  /** Drops the body and the connection; call it when the body is not wanted. */
  discard(): void;
}

export class FetchError extends Error {
  constructor(
    message: string,
    readonly url: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
/** The URL, an address it resolves to, or a redirect is not allowed; `kind` says which, for messages that name no address. */
export class FetchRefusedError extends FetchError {
  constructor(
    message: string,
    url: string,
    readonly kind: 'url' | 'address' | 'redirects',
  ) {
    super(message, url);
  }
}
/** The deadline passed. */
export class FetchTimeoutError extends FetchError {}
/** DNS, connection, TLS or protocol failure. */
export class FetchFailedError extends FetchError {
  constructor(
    message: string,
    url: string,
    readonly code?: string,
  ) {
    super(message, url);
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const DEFAULT_MAX_REDIRECTS = 5;
const USER_AGENT = 'Almanac (+https://almanac.dev)';

export async function safeFetch(input: string, opts: SafeFetchOptions): Promise<SafeResponse> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([deadline.signal, opts.signal]) : deadline.signal;
  const maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const method = opts.method ?? 'GET';
  const redirects: string[] = [];
  let url = input;
  const timedOut = () => new FetchTimeoutError(`no complete answer within ${opts.timeoutMs} ms`, url);

  try {
    for (;;) {
      const target = parseTarget(url);
      const rule = opts.allowPrivateNetworks ?? false;
      const pinned = await pinAddress(target, typeof rule === 'function' ? rule(target) : rule, signal);
      const res = await requestPinned(target, pinned, method, opts.headers ?? {}, signal);
      const location = res.headers.location;
      if (REDIRECTS.has(res.statusCode ?? 0) && location) {
        res.destroy();
        if (redirects.length >= maxRedirects) throw new FetchRefusedError(`more than ${maxRedirects} redirects`, url, 'redirects');
        let next: string;
        try {
          next = new URL(location, target).href;
        } catch {
          throw new FetchFailedError(`redirect to an invalid URL: ${location.slice(0, 200)}`, url);
        }
        redirects.push(next);
        url = next;
        continue;
      }
      return respond(res, {
        url,
        redirects,
        address: res.socket?.remoteAddress ?? pinned.address,
        maxBytes: opts.maxBytes,
        signal,
        timer,
        timedOut,
      });
    }
  } catch (err) {
    clearTimeout(timer);
    if (err instanceof FetchError) throw err;
    if (deadline.signal.aborted) throw timedOut();
    if (opts.signal?.aborted) throw opts.signal.reason ?? err;
    throw asFailed(err, url);
  }
}

/** Only absolute http(s) URLs. */
function parseTarget(url: string): URL {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new FetchRefusedError('not an absolute URL', url, 'url');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new FetchRefusedError(`the scheme ${target.protocol.replace(/:$/, '')} is not allowed (only http and https)`, url, 'url');
  }
  return target;
}

/**
 * Resolves the host and picks the address to connect to. Every address it resolves to must be allowed:
 * a name that answers with both a public and a private address is refused rather than gambled on.
 */
async function pinAddress(target: URL, allowPrivateNetworks: boolean, signal: AbortSignal) {
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  if (net.isIP(host)) {
    addresses = [{ address: host, family: net.isIP(host) }];
  } else {
    try {
      addresses = await untilAborted(dns.lookup(host, { all: true, verbatim: true }), signal);
    } catch (err) {
      if (signal.aborted) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      throw new FetchFailedError(`the host ${host} could not be resolved${code ? ` (${code})` : ''}`, target.href, code);
    }
  }
  if (addresses.length === 0) throw new FetchFailedError(`the host ${host} has no address`, target.href);
  for (const { address } of addresses) {
    if (!isAllowedAddress(address, { allowPrivateNetworks })) {
      const cls = classifyAddress(address);
      const what = cls === 'public' ? 'not allowed' : describeAddressClass(cls);
      const shown = address === host ? address : `${host} resolves to ${address}, which`;
      throw new FetchRefusedError(`${shown} is ${what}`, target.href, 'address');
    }
  }
  return addresses[0];
}

/**
 * One request whose connection goes to `pinned` whatever the resolver says now (exported for its test);
 * the Host header and TLS (SNI, certificate name) still use the URL's host name.
 */
export function requestPinned(
  target: URL,
  pinned: { address: string; family: number },
  method: string,
  headers: Record<string, string>,
  signal: AbortSignal,
) {
  const lookup: net.LookupFunction = (_host, options, callback) => {
    if (options.all) (callback as (err: null, addresses: { address: string; family: number }[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const lib = target.protocol === 'https:' ? https : http;
  return new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = lib.request(target, {
      method,
      headers: { 'user-agent': USER_AGENT, accept: '*/*', ...headers },
      lookup,
      // A pooled socket could have been opened to another address for the same host name.
      agent: false,
      signal,
    });
    req.once('response', resolve);
    // Kept for the request's life: an abort after the response must not become an unhandled 'error'.
    req.on('error', reject);
    req.end();
  });
}

function respond(
  res: http.IncomingMessage,
  ctx: {
    url: string;
    redirects: string[];
    address: string;
    maxBytes?: number;
    signal: AbortSignal;
    timer: NodeJS.Timeout;
    timedOut: () => FetchTimeoutError;
  },
): SafeResponse {
  let truncated = false;
  // Until the caller reads the body an abort has no one to tell; reading surfaces it through the iterator.
  res.on('error', () => {});
  async function* capped() {
    let seen = 0;
    try {
      for await (const chunk of res as AsyncIterable<Buffer>) {
        if (ctx.maxBytes !== undefined && seen + chunk.length > ctx.maxBytes) {
          if (ctx.maxBytes > seen) yield chunk.subarray(0, ctx.maxBytes - seen);
          truncated = true;
          return;
        }
        seen += chunk.length;
        yield chunk;
      }
    } catch (err) {
      if (ctx.signal.aborted) throw ctx.timedOut();
      throw asFailed(err, ctx.url);
    } finally {
      res.destroy();
      clearTimeout(ctx.timer);
    }
  }
  const body = Readable.from(capped(), { objectMode: false });
  return {
    status: res.statusCode ?? 0,
    headers: res.headers,
    url: ctx.url,
    redirects: ctx.redirects,
    address: ctx.address,
    body,
    get truncated() {
      return truncated;
    },
    async bytes() {
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    discard() {
      body.destroy();
      res.destroy();
      clearTimeout(ctx.timer);
    },
  };
}

function asFailed(err: unknown, url: string) {
  const e = err as NodeJS.ErrnoException;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const message = FAILURES[code ?? ''] ?? (e instanceof Error ? e.message : String(err));
  return new FetchFailedError(code && !message.includes(code) ? `${message} (${code})` : message, url, code);
}

const FAILURES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed',
  HPE_INVALID_CONSTANT: 'not an HTTP response',
};

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}
