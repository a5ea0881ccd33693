/**
 * The error catalogue: every `code` the service answers with, its HTTP status and title, and a factory
 * per failure (Outline's style). The HTTP layer renders a DomainError as problem+json and MCP tools as a
 * tool error, so a rule fails the same way on every entry point; the OpenAPI document lists the codes.
 * Codes are stable: clients branch on them. Add one here, never inline.
 */
export const ERROR_CODES = {
  bad_request: { status: 400, title: 'Bad request' },
  invalid_parameters: { status: 400, title: 'Invalid query parameters' },
  malformed_json: { status: 400, title: 'Malformed request body' },
  malformed_body: { status: 400, title: 'Malformed request body' },
  invalid_multipart: { status: 400, title: 'Invalid multipart body' },
  upload_missing_file: { status: 400, title: 'No file' },
  upload_size_mismatch: { status: 400, title: 'Upload size mismatch' },
  unsupported_filter: { status: 400, title: 'Unsupported filter' },
  publish_requirements_missing: { status: 400, title: 'Publish requirements missing' },
  // The spec's §errors: a query on a non-queryable resource is a 400 (the routes declare it, and /text's
  // not_text with it); CKAN's datastore answers it as its 404.
  not_queryable: { status: 400, title: 'Not queryable' },
  not_text: { status: 400, title: 'Not text' },
  query_too_long: { status: 400, title: 'Query too long' },
  query_invalid: { status: 400, title: 'Invalid query' },
  query_not_select: { status: 400, title: 'Only SELECT queries' },
  query_too_large: { status: 400, title: 'Query needs too much memory' },
  unauthenticated: { status: 401, title: 'Authentication required' },
  invalid_token: { status: 401, title: 'Authentication failed' },
  invalid_credentials: { status: 401, title: 'Authentication failed' },
  forbidden: { status: 403, title: 'Forbidden' },
  registration_disabled: { status: 403, title: 'Registration disabled' },
  upload_url_expired: { status: 403, title: 'Upload URL expired' },
  invalid_signature: { status: 403, title: 'Invalid signature' },
  not_found: { status: 404, title: 'Not found' },
  no_preview: { status: 404, title: 'No preview' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  query_timeout: { status: 408, title: 'Query timeout' },
  request_timeout: { status: 408, title: 'Request timeout' },
  conflict: { status: 409, title: 'Conflict' },
  upload_session_closed: { status: 409, title: 'Upload URL no longer in use' },
  harvested_dataset: { status: 409, title: 'Managed by a harvest source' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  upload_too_large: { status: 413, title: 'Upload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  range_not_satisfiable: { status: 416, title: 'Range not satisfiable' },
  validation_failed: { status: 422, title: 'Validation failed' },
  login_rate_limited: { status: 429, title: 'Too many requests' },
  registration_rate_limited: { status: 429, title: 'Too many requests' },
  query_busy: { status: 429, title: 'Too many requests' },
  internal_error: { status: 500, title: 'Internal server error' },
  jobs_unavailable: { status: 503, title: 'Service unavailable' },
  database_unavailable: { status: 503, title: 'Service unavailable' },
  storage_unavailable: { status: 503, title: 'Service unavailable' },
  deletion_incomplete: { status: 503, title: 'Deletion incomplete' },
  purge_incomplete: { status: 503, title: 'Purge incomplete' },
  search_sync_failed: { status: 503, title: 'Search index not updated' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

export interface FieldError {
  path: string;
  message: string;
}

export class DomainError extends Error {
  readonly status: number;
  readonly title: string;

  constructor(
    readonly code: ErrorCode,
    detail?: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail ?? ERROR_CODES[code].title);
    this.status = ERROR_CODES[code].status;
    this.title = ERROR_CODES[code].title;
  }
}

// ---- requests ----

export const invalidParameters = (errors: FieldError[], detail = 'Some query parameters are invalid.') =>
  new DomainError('invalid_parameters', detail, errors);
export const validationFailed = (errors: FieldError[], detail = 'The request has invalid fields.') =>
  new DomainError('validation_failed', detail, errors);
export const unsupportedMediaType = (detail = 'Send the body as application/json.') => new DomainError('unsupported_media_type', detail);
export const invalidMultipart = (detail: string) => new DomainError('invalid_multipart', detail);
export const uploadMissingFile = () => new DomainError('upload_missing_file', 'The multipart body has no file part.');
export const conflict = (detail: string, errors?: FieldError[]) => new DomainError('conflict', detail, errors);
export const notFound = (what: string) => new DomainError('not_found', `${what} was not found.`);

export const routeNotFound = (method: string, path: string) => new DomainError('not_found', `No route matches ${method} ${path}.`);
export const methodNotAllowed = (method: string, path: string) =>
  new DomainError('method_not_allowed', `${method} is not allowed on ${path}.`);
export const requestTimedOut = (ms: number) =>
  new DomainError('request_timeout', `The request did not arrive whole within ${Math.round(ms / 1000)} s.`);
export const uploadStalled = (ms: number) =>
  new DomainError('request_timeout', `The upload sent nothing for ${Math.round(ms / 1000)} s and was cut; nothing of it was kept.`);
export const malformedJson = () => new DomainError('malformed_json', 'The body is not valid JSON.');
export const malformedBody = () => new DomainError('malformed_body', 'The body does not match its Content-Encoding.');
export const payloadTooLarge = (detail?: string) => new DomainError('payload_too_large', detail);
export const badRequest = (detail?: string, errors?: FieldError[]) => new DomainError('bad_request', detail, errors);
export const rangeNotSatisfiable = (size: number) => new DomainError('range_not_satisfiable', `The object has ${size} bytes.`);
/** A bug: its details stay in the log, the caller gets the request id to quote. */
export const internalError = (requestId: string) =>
  new DomainError('internal_error', `Something went wrong on our side; quote request id ${requestId} when reporting it.`);

// ---- who is asking ----

export const unauthenticated = (detail = 'Log in or send an API token.') => new DomainError('unauthenticated', detail);
export const invalidToken = () => new DomainError('invalid_token', 'The API token is malformed, unknown, expired or revoked.');
export const invalidCredentials = () => new DomainError('invalid_credentials', 'The username, email or password is wrong.');
export const forbidden = (detail = 'You do not have permission to do this.') => new DomainError('forbidden', detail);
export const registrationDisabled = () => new DomainError('registration_disabled', 'This site does not accept new registrations.');

/** A 429 with Retry-After, in whole seconds (at least 1). */
export const tooManyRequests = (
  code: 'login_rate_limited' | 'registration_rate_limited' | 'query_busy',
  detail: string,
  retryAfterSeconds: number,
) => new DomainError(code, detail, undefined, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });

// ---- datasets and files ----

export const unsupportedFilter = (detail: string, errors: FieldError[]) => new DomainError('unsupported_filter', detail, errors);
export const publishRequirementsMissing = (missing: FieldError[]) =>
  new DomainError('publish_requirements_missing', 'The draft cannot be published yet.', missing);
/** A harvested dataset follows its source: hand edits would be overwritten by the next run (issue 18). */
export const harvestedDataset = (sourceName: string) =>
  new DomainError(
    'harvested_dataset',
    `This dataset is managed by harvest source ${sourceName}; delete the source without purge to detach it, then edit.`,
  );
export const uploadTooLarge = (maxBytes: number) =>
  new DomainError('upload_too_large', `Files larger than ${maxBytes} bytes cannot be uploaded here.`);
export const uploadUrlExpired = () => new DomainError('upload_url_expired', 'This upload URL has expired; ask for a new one.');
/** `got` is null when the body ran past the declared size (it is not read further). */
export const uploadSizeMismatch = (got: number | null, declared: number) =>
  new DomainError(
    'upload_size_mismatch',
    `The upload URL was issued for ${declared} bytes, but ${got === null ? 'more' : got} ${got === 1 ? 'was' : 'were'} sent; ask for a new URL with the right size.`,
  );
export const uploadSessionClosed = () =>
  new DomainError(
    'upload_session_closed',
    'This upload URL takes no more bytes: its upload was completed or replaced by a newer upload URL, or the resource was deleted. Ask for a new URL.',
  );
export const invalidSignature = () => new DomainError('invalid_signature', 'This upload URL is not valid: its signature does not match.');
export const noPreview = () => new DomainError('no_preview', 'There is no preview of this resource yet; the pipeline makes one.');
export const notText = (format: string | null | undefined) =>
  new DomainError('not_text', `This resource is ${format ?? 'binary'}, which has no text form.`);

// ---- queries ----

export const notQueryable = () =>
  new DomainError(
    'not_queryable',
    'This resource has no preview to query: only CSV/TSV resources the pipeline has processed are queryable.',
  );
export const queryTooLong = (maxChars: number) => new DomainError('query_too_long', `Queries are limited to ${maxChars} characters.`);
/** The sandbox refused or stopped the query; its message says why. */
export const queryFailed = (code: 'query_invalid' | 'query_not_select' | 'query_timeout' | 'query_too_large', detail: string) =>
  new DomainError(code, detail);

// ---- background jobs ----

/** The job engine (Temporal) out of reach or too slow: the service's outage, not a bug, so 503 to retry. */
export const jobsUnavailable = () => new DomainError('jobs_unavailable', 'Background jobs cannot be reached right now; try again shortly.');
/** The database or the object store out of reach: the service's outage, not a bug; Retry-After says when to try again. */
export const databaseUnavailable = () =>
  new DomainError('database_unavailable', 'The database cannot be reached right now; try again shortly.', undefined, {
    'Retry-After': '5',
  });
export const storageUnavailable = () =>
  new DomainError('storage_unavailable', 'File storage cannot be reached right now; try again shortly.', undefined, { 'Retry-After': '5' });
export const deletionIncomplete = () =>
  new DomainError('deletion_incomplete', 'The draft could not be deleted completely; repeat the DELETE to finish.');
export const purgeIncomplete = () =>
  new DomainError('purge_incomplete', 'The dataset could not be purged completely; repeat the request to finish.');
export const searchSyncFailed = () =>
  new DomainError(
    'search_sync_failed',
    'The change is saved, but the search index could not be updated; publishing the dataset again re-runs the sync.',
  );
