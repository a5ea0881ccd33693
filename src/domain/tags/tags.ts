import { Tag } from '../../entities/index.ts';
import type { DomainContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { byNameOrId } from '../ids.ts';
import { likePattern, page, type PageRequest } from '../pagination.ts';

const presentTag = (t: Tag) => ({ id: t.id, name: t.name });

export async function listTags(ctx: DomainContext, q: string | undefined, req: PageRequest) {
  const [rows, count] = await ctx.em.findAndCount(Tag, q ? { name: { $ilike: likePattern(q) } } : {}, {
    orderBy: { name: 'asc' },
    offset: req.offset,
    limit: req.limit,
  });
  return page(rows.map(presentTag), count, req);
}

export async function getTag(ctx: DomainContext, nameOrId: string) {
  const tag = await ctx.em.findOne(Tag, byNameOrId(nameOrId));
  if (!tag) throw notFound('Tag');
  return presentTag(tag);
}
