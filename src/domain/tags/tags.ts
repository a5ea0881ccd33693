import { Dataset, Tag } from '../../entities/index.ts';
import { visibleDatasetsFilter, type OrgRoles } from '../../policies/datasets.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { orgRolesOf } from '../datasets/access.ts';
import { notFound } from '../errors.ts';
import { byNameOrId } from '../ids.ts';
import { page, type PageRequest } from '../pagination.ts';
import { likePattern } from '../like-pattern.ts';

const presentTag = (t: Tag) => ({ id: t.id, name: t.name });

// A QueryBuilder is thenable: build it synchronously, so nothing awaits (and runs) it by accident.
/**
 * Tags exist for a caller only through the active datasets it may see: a tag used only by drafts, or by
 * private datasets of someone else's organization, is not listed and is 404. The rule runs in SQL.
 */
function visibleTags(ctx: DomainContext, actor: Actor, roles: OrgRoles) {
  const tagIds = ctx.em
    .createQueryBuilder(Dataset, 'd')
    .select('t.id')
    .join('d.tags', 't')
    .where({ $and: [visibleDatasetsFilter(actor, roles), { state: 'active' }] });
  return ctx.em.createQueryBuilder(Tag, 'tag').where({ id: { $in: tagIds.getKnexQuery() } });
}

export async function listTags(ctx: DomainContext, actor: Actor, q: string | undefined, req: PageRequest) {
  const qb = visibleTags(ctx, actor, await orgRolesOf(ctx, actor));
  if (q) qb.andWhere({ name: { $ilike: likePattern(q) } });
  const [rows, count] = await qb.orderBy({ name: 'asc' }).offset(req.offset).limit(req.limit).getResultAndCount();
  return page(rows.map(presentTag), count, req);
}

export async function getTag(ctx: DomainContext, actor: Actor, nameOrId: string) {
  const tag = await visibleTags(ctx, actor, await orgRolesOf(ctx, actor))
    .andWhere(byNameOrId(nameOrId))
    .getSingleResult();
  if (!tag) throw notFound('Tag');
  return presentTag(tag);
}
