import { FetchFailedError, FetchRefusedError, FetchTimeoutError, type FetchError } from '../../net/safe-fetch.ts';

/**
 * What pipeline-status says when a link cannot be fetched: a few stable sentences that anyone allowed
 * to see the resource may read. The fetch's own message (addresses an internal name resolved to, system
 * error text) stays in the worker's log.
 */
export function linkFailureReason(err: FetchError): string {
  if (err instanceof FetchTimeoutError) return 'The link could not be fetched: its server did not answer in time.';
  if (err instanceof FetchRefusedError) {
    if (err.kind === 'redirects') return 'The link could not be fetched: it redirects too many times.';
    if (err.kind === 'url') return 'The link could not be fetched: it is not an http or https URL.';
    return 'The link could not be fetched: it points to a private, local or reserved network address, which this catalog does not fetch from.';
  }
  const code = err instanceof FetchFailedError ? (err.code ?? '') : '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA' || /has no address$/.test(err.message)) {
    return 'The link could not be fetched: its host name could not be found.';
  }
  if (/CERT|TLS|SSL|SELF_SIGNED/.test(code)) return 'The link could not be fetched: its server did not present a valid certificate.';
  if (code.startsWith('HPE_')) return 'The link could not be fetched: its server did not answer with HTTP.';
  return 'The link could not be fetched: its server could not be reached.';
}
