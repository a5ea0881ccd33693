import Router from '@koa/router';
import type { Services } from '../services.ts';

/** The catalog's feeds: DCAT-AP 3 (/catalog, /dataset/{nameOrId}), DCAT-US (/data.json), Croissant. */
export function feedsRouter(services: Services): Router {
  void services;
  return new Router();
}
