import Router from '@koa/router';
import type { Context } from 'koa';
import { badRequest } from '../../domain/errors.ts';
import { queryCaller } from '../../domain/resources/query.ts';
import { ckanActions } from './actions/index.ts';
import { ckanSiteUrl, sendResult } from './envelope.ts';
import { readParams } from './params.ts';
import { CKAN_ACTION_PATHS } from './paths.ts';
import type { DomainServices } from '../../domain/context.ts';

/**
 * The CKAN-compatible Action API (read side): /api/3/action/{name} and /api/action/{name}, GET (query
 * string) and POST (JSON body) alike, never a redirect. Each action calls the same domain functions
 * and visibility rule as REST; answers and failures come in CKAN's envelopes (envelope.ts).
 */
export function ckanRouter(services: DomainServices): Router {
  const router = new Router();
  const actions = ckanActions(services.config);
  const site = ckanSiteUrl(services.config);

  const handle = async (ctx: Context & { params: Record<string, string> }) => {
    const name = ctx.params.name;
    const action = Object.hasOwn(actions, name) ? actions[name] : undefined;
    // Failures go up to the CKAN paths' error answers (ckanErrorSender), in CKAN's envelope.
    if (!action) throw badRequest(`Action name not known: ${name}`);
    const params = await readParams(ctx);
    const result = await action.run({
      domain: ctx.state.domain,
      actor: ctx.state.actor,
      params,
      caller: queryCaller(ctx.state.actor, ctx.ip),
    });
    sendResult(ctx, site, name, result);
  };
  for (const path of CKAN_ACTION_PATHS) {
    router.get(path, handle);
    router.post(path, handle);
  }
  return router;
}
