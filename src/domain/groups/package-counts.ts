import { raw } from '@mikro-orm/postgresql';
import { Dataset, type Group } from '../../entities/index.ts';
import { visibleDatasetsFilter } from '../../policies/datasets.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { orgRolesOf } from '../datasets/access.ts';
import { presentGroup } from './present.ts';

/**
 * `packageCount` of organizations and categories: their active datasets that this caller may see, so
 * the count never reveals a private dataset. One grouped query for a whole page of groups.
 */
async function packageCounts(ctx: DomainContext, actor: Actor, groups: Group[]): Promise<Map<string, number>> {
  if (groups.length === 0) return new Map();
  const ids = groups.map((g) => g.id);
  const roles = await orgRolesOf(ctx, actor);
  const visible = { $and: [visibleDatasetsFilter(actor, roles), { state: 'active' as const }] };
  const qb = ctx.em.createQueryBuilder(Dataset, 'd').where(visible);
  const rows: Array<{ gid: string; n: string }> =
    groups[0].kind === 'organization'
      ? await qb
          .select([raw('d.owner_org_id as gid'), raw('count(*) as n')])
          .andWhere({ ownerOrg: { $in: ids } })
          .groupBy('d.owner_org_id')
          .execute()
      : await qb
          .select([raw('g.id as gid'), raw('count(*) as n')])
          .join('d.groups', 'g')
          .andWhere({ groups: { $in: ids } })
          .groupBy('g.id')
          .execute();
  return new Map(rows.map((r) => [r.gid, Number(r.n)]));
}

/** Presents groups (all of one kind) with their packageCount for this caller. */
export async function presentGroupsWithCounts(ctx: DomainContext, actor: Actor, groups: Group[]) {
  const counts = await packageCounts(ctx, actor, groups);
  return groups.map((g) => ({ ...presentGroup(g), packageCount: counts.get(g.id) ?? 0 }));
}
