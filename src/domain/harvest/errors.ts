/**
 * Why a source could not be read. Plain Error subclasses, so that they cross a Temporal activity
 * boundary by name: the workflow retries `SourceUnavailable` with backoff and lists `SourceInvalid`
 * among its non-retryable error types (retrying would only get the same answer).
 */

/** The source is down for now: a 5xx, 429 or 408 answer, a timeout, a refused or broken connection. */
export class SourceUnavailable extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SourceUnavailable';
  }
}

/**
 * The source answered, but not with what a harvest can read: a 404 or other 4xx, an address or scheme
 * that is not allowed, an unparseable document, something that is not a CKAN API or a DCAT catalog, a
 * document over the size bound, paging that does not advance.
 */
export class SourceInvalid extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SourceInvalid';
  }
}
