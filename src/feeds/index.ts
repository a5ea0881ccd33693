import type Router from '@koa/router';
import type { Services } from '../services.ts';
import { catalogRoutes } from './catalog-routes.ts';

/** The catalog's feeds: DCAT-AP 3 (/catalog, /dataset/{nameOrId}), DCAT-US (/data.json), Croissant. */
export function feedsRouter(services: Services): Router {
  return catalogRoutes(services);
}
