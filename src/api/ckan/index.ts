import Router from '@koa/router';
import type { Context } from 'koa';
import { badRequest } from '../../domain/errors.ts';
import { queryCaller } from '../../domain/resources/query.ts';
import { auditedRunner, unitKey } from '../../policies/audited-runner.ts';
import { ckanActions } from './actions/index.ts';
import { ckanErrorSender, ckanSiteUrl, sendResult } from './envelope.ts';
import { readParams } from './params.ts';
import { CKAN_ACTION_PATHS } from './paths.ts';
import type { DomainServices } from '../../domain/context.ts';

/**
 * The CKAN-compatible Action API: /api/3/action/{name} and /api/action/{name}; read actions by GET (query
 * string) and POST (JSON body) alike, write actions by POST only; never a redirect. Each action calls the same domain functions
 * and visibility rule as REST, through the audited runner; answers and failures come in CKAN's
 * envelopes (envelope.ts).
 */
export function ckanRouter(services: DomainServices): Router {
  const router = new Router();
  const site = ckanSiteUrl(services.config);
  const run = auditedRunner(services.config.http);
  const sendError = ckanErrorSender(site);

  const handle = async (ctx: Context & { params: Record<string, string> }) => {
    const name = ctx.params.name;
    const action = Object.hasOwn(ckanActions, name) ? ckanActions[name] : undefined;
    // Failures outside an action go up to the CKAN paths' error answers (ckanErrorSender), in CKAN's envelope.
    if (!action) throw badRequest(`Action name not known: ${name}`);
    if (action.write && ctx.method !== 'POST') throw badRequest('JSON Error: Invalid request. Please use POST method for your request');
    const params = await readParams(ctx);
    await run(
      { key: unitKey('ckan', name), noPolicy: action.noPolicy },
      async () => {
        const call = { domain: ctx.state.domain, actor: ctx.state.actor, params, caller: queryCaller(ctx.state.actor, ctx.ip) };
        sendResult(ctx, site, name, await action.run(call));
      },
      { refuse: (err) => sendError(ctx, err), inputs: [params.raw] },
    ).finally(() => params.file?.stream.resume()); // a file no action read: drained, so the answer can go
  };
  for (const path of CKAN_ACTION_PATHS) {
    router.get(path, handle);
    router.post(path, handle);
  }
  return router;
}
