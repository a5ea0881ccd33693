import { loadCatalogResource } from '../../../domain/catalog/resources.ts';
import { resourceDict } from '../package-dict.ts';
import { required, type Action } from './action.ts';

/** resource_show. */

export const resourceShow: Action = {
  help: 'One resource of an active dataset the caller may see: resource_show id=<resource id>.',
  async run({ domain, actor, params }) {
    return resourceDict(await loadCatalogResource(domain, actor, required(params, 'id')));
  },
};
