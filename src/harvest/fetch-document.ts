import { FetchRefusedError, FetchTimeoutError, safeFetch, type PrivateNetworks } from '../net/safe-fetch.ts';
import { SourceInvalid, SourceUnavailable } from '../domain/harvest/errors.ts';

/** One document of a source, read whole. */
export interface SourceDocument {
  /** The URL that answered, after redirects. */
  url: string;
  /** The media type without parameters, lower case, or null. */
  contentType: string | null;
  body: Buffer;
}

export interface FetchDocumentOptions {
  timeoutMs: number;
  /** Past this many bytes the document is refused (SourceInvalid): a harvest reads documents whole. */
  maxBytes: number;
  allowPrivateNetworks: PrivateNetworks;
  accept: string;
}

/** Answers worth asking again later: the source is overloaded, restarting, or slow. */
const TRANSIENT = (status: number) => status >= 500 || status === 408 || status === 425 || status === 429;

const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/**
 * GETs a source document through safeFetch (every hop's address checked; harvest sources are set by a
 * sysadmin, so the caller may allow private networks, while cloud-metadata addresses stay refused) and
 * sorts failures into the two the workflow tells apart: SourceUnavailable (timeouts, connection
 * failures, 5xx, 408, 425, 429: retried with backoff) and SourceInvalid (refused URLs, other non-2xx
 * answers, a body over `maxBytes`: not retried).
 */
export async function fetchSourceDocument(url: string, opts: FetchDocumentOptions): Promise<SourceDocument> {
  let res;
  try {
    res = await safeFetch(url, {
      timeoutMs: opts.timeoutMs,
      maxBytes: opts.maxBytes,
      allowPrivateNetworks: opts.allowPrivateNetworks,
      headers: { accept: opts.accept },
    });
  } catch (err) {
    throw asSourceError(err, url);
  }
  if (res.status < 200 || res.status >= 300) {
    const excerpt = await res
      .bytes()
      .then((body) => body.subarray(0, 300).toString('utf8').replace(/\s+/g, ' ').trim())
      .catch(() => '');
    const said = excerpt ? `: ${excerpt.slice(0, 200)}` : '';
    const message = `${url} answered HTTP ${res.status}${said}`;
    throw TRANSIENT(res.status) ? new SourceUnavailable(message) : new SourceInvalid(message);
  }
  let body: Buffer;
  try {
    body = await res.bytes();
  } catch (err) {
    throw asSourceError(err, url);
  }
  if (res.truncated) {
    throw new SourceInvalid(`${url} is larger than ${megabytes(opts.maxBytes)}, the most a harvest reads in one document`);
  }
  const type = res.headers['content-type'];
  return { url: res.url, contentType: type ? type.split(';')[0]!.trim().toLowerCase() || null : null, body };
}

function asSourceError(err: unknown, url: string): Error {
  if (err instanceof FetchRefusedError) return new SourceInvalid(`${url} cannot be harvested: ${err.message}`, { cause: err });
  if (err instanceof FetchTimeoutError) return new SourceUnavailable(`${url} did not answer in time (${err.message})`, { cause: err });
  const message = err instanceof Error ? err.message : String(err);
  return new SourceUnavailable(`${url} could not be reached: ${message}`, { cause: err });
}

/** The document as UTF-8 text, a byte-order mark dropped. */
export const documentText = (doc: SourceDocument) => doc.body.toString('utf8').replace(/^\uFEFF/, '');

/** The document as JSON, or SourceInvalid naming what it is not. */
export function documentJson(doc: SourceDocument, what: string): unknown {
  try {
    return JSON.parse(documentText(doc));
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new SourceInvalid(`${doc.url} is not ${what}: it is not JSON (${reason})`);
  }
}
