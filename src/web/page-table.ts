import type { UnitDeclaration } from '../policies/audited-runner.ts';

const identityPages = 'Logging in, registering and logging out are how a caller comes to have an identity: no rule applies before.';

/**
 * Every page of the web catalog, as `<METHOD> <koa path>`: a page is mounted by its line here
 * (mountPage), runs through the audited runner as `web:<line>`, and the audit report expects each to
 * have run (test/run.ts). A page that needs no authorization rule says why.
 */
export const WEB_PAGES = {
  'GET /static/:file': { noPolicy: "The site's own stylesheet and scripts, the same for everyone." },
  'GET /': {},
  'GET /dataset': {},
  'GET /dataset/new': {},
  'POST /dataset/new': {},
  'GET /dataset/:name': {},
  'GET /dataset/:name/history': {},
  'GET /dataset/:name/edit': {},
  'POST /dataset/:name/edit': {},
  'POST /dataset/:name/resources': {},
  'POST /dataset/:name/publish': {},
  'GET /dataset/:name/resource/:id': {},
  'GET /dataset/:name/resource/:id/query': {},
  'GET /dataset/:name/resource/:id/query.:format': {},
  'GET /dataset/:name/resource/:id/versions/compare': {},
  'POST /dataset/:name/resource/:id/versions/:n/:decision': {},
  'GET /organization': {},
  'GET /organization/:name': {},
  'GET /group': {},
  'GET /group/:name': {},
  'GET /account/tokens': {},
  'POST /account/tokens': {},
  'POST /account/tokens/:id/revoke': {},
  'GET /register': { noPolicy: identityPages },
  'POST /register': { noPolicy: identityPages },
  'GET /login': { noPolicy: identityPages },
  'POST /login': { noPolicy: identityPages },
  'POST /logout': { noPolicy: identityPages },
} satisfies Record<string, UnitDeclaration>;

export type WebPage = keyof typeof WEB_PAGES;
