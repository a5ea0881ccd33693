import { z } from 'zod';
import { DATASET_LIMITS } from '../../../domain/datasets/limits.ts';
import { getTag, listTags } from '../../../domain/tags/tags.ts';
import { defineRoute } from '../../../http/route.ts';
import { listOf, paging } from '../../../http/schemas.ts';

const TagRecord = z.object({ id: z.uuid(), name: z.string() }).meta({ id: 'Tag' });

export const tagRoutes = [
  defineRoute({
    method: 'get',
    path: '/tags',
    summary: 'Tags of the active datasets the caller may see, by name',
    tag: 'tags',
    access: 'public',
    query: z.object({ q: z.string().trim().max(100).optional(), ...paging }),
    response: listOf(TagRecord),
    handle: ({ domain, actor, query }) => listTags(domain, actor, query.q, query),
  }),
  defineRoute({
    method: 'get',
    path: '/tags/{id}',
    summary: 'Tag detail, by id or name',
    tag: 'tags',
    access: 'public',
    params: z.object({ id: z.string().min(1).max(DATASET_LIMITS.tagLength) }),
    response: TagRecord,
    handle: ({ domain, actor, params }) => getTag(domain, actor, params.id),
  }),
];
