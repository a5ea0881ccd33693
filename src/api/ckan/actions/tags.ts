import { listTags } from '../../../domain/tags/tags.ts';
import { invalidParameters } from '../../../domain/errors.ts';
import { tagDict } from '../package-dict.ts';
import type { Action } from './action.ts';

/** tag_list: the tags of active datasets the caller may see (a tag only a draft uses is not one). */
export const tagList: Action = {
  help: 'Names of the tags of the datasets the caller may see; query filters them, all_fields=true gives tag dicts.',
  async run({ domain, actor, params }) {
    const query = params.string('query') ?? params.string('q');
    const allFields = params.bool('all_fields') ?? false;
    params.check();
    if (params.has('vocabulary_id'))
      throw invalidParameters([{ path: 'vocabulary_id', message: 'Not found: Almanac has no tag vocabularies' }]);
    const found = await listTags(domain, actor, query, { offset: 0, limit: 100_000 });
    return allFields ? found.results.map(tagDict) : found.results.map((t) => t.name);
  },
};
