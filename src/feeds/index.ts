import type Router from '@koa/router';
import { catalogRoutes } from './catalog-routes.ts';
import type { DomainServices } from '../domain/context.ts';

/** The catalog's feeds: DCAT-AP 3 (/catalog, /dataset/{nameOrId}), DCAT-US (/data.json), Croissant. */
export function feedsRouter(services: DomainServices): Router {
  return catalogRoutes(services);
}
