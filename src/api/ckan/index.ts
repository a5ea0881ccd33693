import Router from '@koa/router';
import type { Services } from '../../services.ts';

/** The CKAN-compatible Action API: /api/3/action/{name} and /api/action/{name}. */
export function ckanRouter(services: Services): Router {
  void services;
  return new Router();
}
