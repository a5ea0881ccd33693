import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Group, Membership, type GroupKind, type MemberRole } from '../../entities/index.ts';
import { authorize, can, type GroupSubject } from '../../policies/index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { conflict, notFound } from '../errors.ts';
import { byNameOrId } from '../ids.ts';
import { page, type PageRequest } from '../pagination.ts';
import { likePattern } from '../like-pattern.ts';
import { presentGroupsWithCounts } from './package-counts.ts';
import { kindLabel } from './present.ts';

export interface GroupFields {
  name: string;
  title?: string | null;
  description?: string | null;
  imageUrl?: string | null;
}

export interface GroupFilter {
  q?: string;
  state?: 'active' | 'deleted';
}

/** Loads a group the actor may see, with the facts its policies need; anything else is 404. */
export async function loadVisibleGroup(ctx: DomainContext, actor: Actor, kind: GroupKind, nameOrId: string) {
  const group = await ctx.em.findOne(Group, { kind, ...byNameOrId(nameOrId) });
  if (!group) throw notFound(kindLabel(kind));
  const subject: GroupSubject = { state: group.state, role: await roleOf(ctx, actor, group.id) };
  if (!can(actor, 'group:read', subject)) throw notFound(kindLabel(kind));
  return { group, subject };
}

export async function roleOf(ctx: DomainContext, actor: Actor, groupId: string): Promise<MemberRole | null> {
  if (actor.userId === null) return null;
  const membership = await ctx.em.findOne(Membership, { group: groupId, user: actor.userId });
  return membership?.role ?? null;
}

export async function listGroups(ctx: DomainContext, actor: Actor, kind: GroupKind, filter: GroupFilter, req: PageRequest) {
  const state = filter.state ?? 'active';
  authorize(actor, state === 'deleted' ? 'group:list-deleted' : 'group:list');
  const where = {
    kind,
    state,
    ...(filter.q ? { $or: [{ name: { $ilike: likePattern(filter.q) } }, { title: { $ilike: likePattern(filter.q) } }] } : {}),
  };
  const [rows, count] = await ctx.em.findAndCount(Group, where, {
    orderBy: { name: 'asc' },
    offset: req.offset,
    limit: req.limit,
  });
  return page(await presentGroupsWithCounts(ctx, actor, rows), count, req);
}

export async function getGroup(ctx: DomainContext, actor: Actor, kind: GroupKind, nameOrId: string) {
  const [record] = await presentGroupsWithCounts(ctx, actor, [(await loadVisibleGroup(ctx, actor, kind, nameOrId)).group]);
  return record;
}

/** `id`: a caller-chosen id (CKAN's organization_create takes one, so a loaded dump keeps its references). */
export async function createGroup(ctx: DomainContext, actor: Actor, kind: GroupKind, fields: GroupFields & { id?: string }) {
  authorize(actor, 'group:create');
  if (fields.id && (await ctx.em.count(Group, { id: fields.id }))) {
    throw conflict('A group with this id already exists.', [{ path: 'id', message: 'is already taken' }]);
  }
  const group = ctx.em.create(Group, { kind, ...(fields.id ? { id: fields.id } : {}), ...normalise(fields) });
  await flushUnique(ctx, kind);
  return (await presentGroupsWithCounts(ctx, actor, [group]))[0];
}

/** PUT: a full replacement, so omitted optional fields are cleared. */
export async function replaceGroup(ctx: DomainContext, actor: Actor, kind: GroupKind, nameOrId: string, fields: GroupFields) {
  const { group, subject } = await loadVisibleGroup(ctx, actor, kind, nameOrId);
  authorize(actor, 'group:update', subject);
  ctx.em.assign(group, normalise(fields));
  await flushUnique(ctx, kind);
  return (await presentGroupsWithCounts(ctx, actor, [group]))[0];
}

export async function softDeleteGroup(ctx: DomainContext, actor: Actor, kind: GroupKind, nameOrId: string) {
  const { group, subject } = await loadVisibleGroup(ctx, actor, kind, nameOrId);
  authorize(actor, 'group:delete', subject);
  if (group.state === 'deleted') return;
  group.state = 'deleted';
  group.deletedAt = new Date();
  await ctx.em.flush();
}

/**
 * CKAN's organization_delete (ckan/logic/action/delete.py): refused while the organization still holds a
 * dataset that is not deleted, drafts included, where REST's DELETE hides them with it. Asked only of
 * someone who may delete it.
 */
export async function softDeleteEmptyOrganization(ctx: DomainContext, actor: Actor, nameOrId: string) {
  const { group, subject } = await loadVisibleGroup(ctx, actor, 'organization', nameOrId);
  authorize(actor, 'group:delete', subject);
  const [held] = await ctx.em.execute<{ id: string }[]>(`select id from datasets where owner_org_id = ? and state <> 'deleted' limit 1`, [
    group.id,
  ]);
  if (held) throw conflict('Organization cannot be deleted while it still has datasets');
  await softDeleteGroup(ctx, actor, 'organization', group.id);
}

/**
 * Restore and purge are sysadmin-only whatever the group: the rule is decided before the lookup, so
 * anyone else gets 401/403 (not the 404 a deleted group shows them) and learns nothing about what exists.
 */
export async function restoreGroup(ctx: DomainContext, actor: Actor, kind: GroupKind, nameOrId: string) {
  authorize(actor, 'group:restore');
  const { group } = await loadVisibleGroup(ctx, actor, kind, nameOrId);
  if (kind === 'organization' && (await ctx.jobs.isOrganizationPurgeRunning(group.id))) {
    throw conflict('This organization is being purged; it can no longer be restored.');
  }
  group.state = 'active';
  group.deletedAt = null;
  await ctx.em.flush();
  return (await presentGroupsWithCounts(ctx, actor, [group]))[0];
}

/** Purge needs a soft delete first, so nothing disappears by one mistaken call. */
export async function loadPurgeable(ctx: DomainContext, actor: Actor, kind: GroupKind, nameOrId: string) {
  authorize(actor, 'group:purge');
  const { group } = await loadVisibleGroup(ctx, actor, kind, nameOrId);
  if (group.state !== 'deleted') throw conflict(`Only a deleted ${kind} can be purged; delete it first.`);
  return group;
}

/** A category purge is synchronous: its memberships go with it through the foreign key cascade. */
export async function purgeCategory(ctx: DomainContext, actor: Actor, nameOrId: string) {
  const group = await loadPurgeable(ctx, actor, 'category', nameOrId);
  // A transaction of its own: the history's triggers read who purged it from there.
  await ctx.em.transactional((tx) => tx.nativeDelete(Group, { id: group.id, kind: 'category' }));
}

/** An organization purge runs as the workflow `purge-org-<id>`; a repeat request joins the running one. */
export async function requestOrganizationPurge(ctx: DomainContext, actor: Actor, nameOrId: string) {
  const group = await loadPurgeable(ctx, actor, 'organization', nameOrId);
  return ctx.jobs.startOrganizationPurge(group.id, actor.userId);
}

export async function myOrganizations(ctx: DomainContext, actor: Actor, req: PageRequest) {
  authorize(actor, 'self:manage');
  const [rows, count] = await ctx.em.findAndCount(
    Membership,
    { user: actor.userId!, group: { kind: 'organization', state: 'active' } },
    { populate: ['group'], orderBy: { group: { name: 'asc' } }, offset: req.offset, limit: req.limit },
  );
  const records = await presentGroupsWithCounts(
    ctx,
    actor,
    rows.map((m) => m.group as Group),
  );
  return page(
    records.map((record, i) => ({ ...record, role: rows[i].role })),
    count,
    req,
  );
}

function normalise(fields: GroupFields) {
  return {
    name: fields.name,
    title: fields.title?.trim() || fields.name,
    description: fields.description ?? null,
    imageUrl: fields.imageUrl ?? null,
  };
}

async function flushUnique(ctx: DomainContext, kind: GroupKind) {
  try {
    await ctx.em.flush();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) {
      throw conflict(`${kind === 'organization' ? 'An organization' : 'A category'} with this name already exists.`, [
        { path: 'name', message: 'is already taken' },
      ]);
    }
    throw err;
  }
}
