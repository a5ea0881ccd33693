import { findByRaw, pgArray } from '../../db.ts';
import { Group, Tag } from '../../entities/index.ts';
import { authorize, can } from '../../policies/index.ts';
import type { OrgRoles } from '../../policies/datasets.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { validationFailed } from '../errors.ts';
import { byNameOrId, isUuid } from '../ids.ts';
import { roleOf } from '../groups/groups.ts';

/**
 * The active organizations the actor may place a dataset in, by the same rule as resolveOwnerOrg: what a
 * form offers as choices. A sysadmin may use any; anyone else those where they are an editor or admin.
 */
export async function placeableOrganizations(
  ctx: DomainContext,
  actor: Actor,
  roles: OrgRoles,
): Promise<Array<{ name: string; title: string }>> {
  if (actor.userId === null) return [];
  const orgs = await ctx.em.find(
    Group,
    { kind: 'organization', state: 'active', ...(actor.sysadmin ? {} : { id: { $in: [...roles.keys()] } }) },
    { orderBy: { name: 'asc' } },
  );
  return orgs
    .filter((org) => can(actor, 'dataset:place-in-org', { orgRole: roles.get(org.id) ?? null }))
    .map((org) => ({ name: org.name, title: org.title }));
}

/** The active organization a dataset is placed in; placing it there needs editor rights (403). */
export async function resolveOwnerOrg(ctx: DomainContext, actor: Actor, roles: OrgRoles, ref: string): Promise<Group> {
  // By id, the organization the request already read (to place a CKAN dict's keys) comes from the identity map.
  const found = isUuid(ref)
    ? await ctx.em.findOne(Group, ref)
    : (await findByRaw(ctx.em, Group, `select * from groups where kind = 'organization' and name = ?`, [ref]))[0];
  const org = found?.kind === 'organization' && found.state === 'active' ? found : null;
  if (!org) throw validationFailed([{ path: 'ownerOrg', message: 'no active organization has this id or name' }]);
  authorize(actor, 'dataset:place-in-org', { orgRole: roles.get(org.id) ?? null });
  return org;
}

/**
 * Tags by name, created on first use; concurrent first uses of one name meet in the upsert. `em.execute`
 * runs inside the caller's transaction, so a request that fails leaves no new tag behind. Names are
 * inserted in one order (sorted): two writes that both create `a` and `b`, listed the other way round,
 * would otherwise each wait for the other's new tag (a deadlock, one of them refused).
 */
export async function resolveTags(ctx: DomainContext, names: string[]): Promise<Tag[]> {
  const unique = [...new Set(names)].sort();
  if (unique.length === 0) return [];
  // One statement: the tags it creates come back from the insert, the others from the table (which the
  // statement's snapshot shows without the new ones). A tag another transaction created meanwhile is in
  // neither, and is read again after.
  const rows = await ctx.em.execute<Array<{ id: string; name: string; created_at: Date }>>(
    `with created as (
       insert into tags (id, name, created_at) values ${unique.map(() => '(gen_random_uuid(), ?, now())').join(', ')}
       on conflict (name) do nothing returning id, name, created_at)
     select id, name, created_at from created
     union all select id, name, created_at from tags where name = any(?::text[])`,
    [...unique, pgArray(unique)],
  );
  const tags = rows.map((row) => ctx.em.map(Tag, row));
  const missing = unique.filter((name) => !tags.some((t) => t.name === name));
  return missing.length ? [...tags, ...(await ctx.em.find(Tag, { name: { $in: missing } }))] : tags;
}

/**
 * Categories by name or id. A category the dataset is not in yet needs the actor to be a member of it
 * (spec §5: category members add datasets to their categories); one it is already in may stay.
 */
export async function resolveCategories(ctx: DomainContext, actor: Actor, refs: string[], current: Group[]): Promise<Group[]> {
  const found: Group[] = [];
  for (const [i, ref] of refs.entries()) {
    const category = await ctx.em.findOne(Group, { kind: 'category', state: 'active', ...byNameOrId(ref) });
    if (!category) throw validationFailed([{ path: `groups.${i}`, message: 'no active category has this id or name' }]);
    if (!current.some((c) => c.id === category.id)) {
      authorize(actor, 'dataset:add-to-category', { categoryRole: await roleOf(ctx, actor, category.id) });
    }
    if (!found.some((c) => c.id === category.id)) found.push(category);
  }
  return found;
}
