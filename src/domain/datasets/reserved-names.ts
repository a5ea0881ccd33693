/**
 * Dataset names that a concrete path of the API takes (`/packages/drafts` is the draft listing, matched
 * before `/packages/{nameOrId}` as OpenAPI says): a dataset so named could not be reached by its name, so
 * none is given it, by hand or by a harvest.
 */
export const RESERVED_DATASET_NAMES: ReadonlySet<string> = new Set(['drafts']);
