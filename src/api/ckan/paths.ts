/** The Action API's two prefixes: `/api/3/action/{name}` and `/api/action/{name}` (CKAN's default version). */
export const CKAN_ACTION_PATHS = ['/api/3/action/:name', '/api/action/:name'];

/** True for any path under the Action API's prefixes, where answers use CKAN's envelopes and auth headers. */
export const isCkanPath = (path: string) => /^\/api(\/3)?\/action(\/|$)/.test(path);

/** The action a CKAN path names, when it names one. */
export const ckanActionName = (path: string) => /^\/api(?:\/3)?\/action\/([^/]+)/.exec(path)?.[1];
