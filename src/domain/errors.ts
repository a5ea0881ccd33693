/**
 * Typed failures of the domain. Each has a stable `code`; the HTTP layer renders them as problem+json
 * and MCP tools as tool errors, so a rule fails the same way on every entry point.
 */
export interface FieldError {
  path: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail?: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail ?? title);
  }
}

export const unauthenticated = (detail = 'Log in or send an API token.') =>
  new DomainError(401, 'unauthenticated', 'Authentication required', detail);

export const forbidden = (detail = 'You do not have permission to do this.') =>
  new DomainError(403, 'forbidden', 'Forbidden', detail);

export const notFound = (what: string) => new DomainError(404, 'not_found', 'Not found', `${what} was not found.`);

export const conflict = (detail: string, errors?: FieldError[]) =>
  new DomainError(409, 'conflict', 'Conflict', detail, errors);

export const validationFailed = (errors: FieldError[], detail = 'The request has invalid fields.') =>
  new DomainError(422, 'validation_failed', 'Validation failed', detail, errors);

export const tooManyRequests = (code: string, detail: string, retryAfterSeconds: number) =>
  new DomainError(429, code, 'Too many requests', detail, undefined, {
    'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });

/** The job engine (Temporal) out of reach or too slow: the service's outage, not a bug, so 503 to retry. */
export const jobsUnavailable = () =>
  new DomainError(503, 'jobs_unavailable', 'Service unavailable', 'Background jobs cannot be reached right now; try again shortly.');

export const deletionIncomplete = () =>
  new DomainError(503, 'deletion_incomplete', 'Deletion incomplete', 'The draft could not be deleted completely; repeat the DELETE to finish.');

export const purgeIncomplete = () =>
  new DomainError(503, 'purge_incomplete', 'Purge incomplete', 'The dataset could not be purged completely; repeat the request to finish.');

export const searchSyncFailed = () =>
  new DomainError(
    503,
    'search_sync_failed',
    'Search index not updated',
    'The change is saved, but the search index could not be updated; publishing the dataset again re-runs the sync.',
  );
