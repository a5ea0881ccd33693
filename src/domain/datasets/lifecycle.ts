import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray } from '../../db.ts';
import { Dataset, type Group, Resource, type DatasetState } from '../../entities/index.ts';
import { stampNew } from '../../entities/base.ts';
import { authorize, can } from '../../policies/index.ts';
import { datasetForSearch } from '../../search/sync.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { afterCommit } from '../after-commit.ts';
import { conflict, notFound, publishRequirementsMissing, unauthenticated, validationFailed } from '../errors.ts';
import { profileRequirementsMissing, resourceProfileErrors } from '../metadata/profiles-enforce.ts';
import { carryProfileReads } from '../metadata/profiles.ts';
import { buildResource, duplicateUrl, resourceInputErrors, type ResourceInput } from '../resources/resources.ts';
import { datasetSubject, loadVisibleDataset, orgRolesOf } from './access.ts';
import { loadDatasetDetail } from './detail-query.ts';
import { assertNotHarvested } from './harvested.ts';
import { syncKeywordsNow } from './keyword-sync.ts';
import { applyDatasetFields, missingForActive, type DatasetInput } from './fields.ts';
import { presentDataset } from './present.ts';

const nameTaken = () => conflict('A dataset with this name already exists.', [{ path: 'name', message: 'is already taken' }]);
const idTaken = (path: string, what: string) => conflict(`A ${what} with this id already exists.`, [{ path, message: 'is already taken' }]);

async function flushDataset(ctx: DomainContext) {
  await mappingClashes({}, () => ctx.em.flush());
}

/** A clash with a taken name or id, as the field it names; `kept` says which resource's id it was. */
async function mappingClashes(kept: KeptIds, write: () => Promise<unknown>) {
  try {
    await write();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) {
      const message = String(err.message);
      if (/datasets_pkey/.test(message)) throw idTaken('id', 'dataset');
      if (/resources_pkey/.test(message)) {
        const at = (kept.resourceIds ?? []).findIndex((id) => id !== undefined && message.includes(id));
        throw idTaken(at >= 0 ? `resources.${at}.id` : 'resources', 'resource');
      }
      throw nameTaken();
    }
    throw err;
  }
}

/**
 * Ids a dataset and its resources keep from where they come from (a CKAN dump loaded by a sysadmin, as
 * CKAN's package_create keeps them): links to them elsewhere still resolve after a migration.
 */
export interface KeptIds {
  id?: string;
  /** By the resource's position; undefined for one that gets a new id. */
  resourceIds?: Array<string | undefined>;
}

async function detail(ctx: DomainContext, dataset: Dataset) {
  const resources = await ctx.em.find(Resource, { dataset: dataset.id }, { orderBy: { position: 'asc' } });
  return presentDataset(dataset, { resources });
}

/**
 * POST /packages: an active dataset and its resources, in one transaction; one bad resource and nothing is
 * created. It answers once the dataset is found by keywords; by meaning once the vector backlog reaches it.
 */
export async function createDataset(ctx: DomainContext, actor: Actor, input: NewDataset) {
  const { dataset, resources } = await insertDataset(ctx, actor, input);
  return presentDataset(dataset, { resources });
}

type NewDataset = DatasetInput & { resources?: ResourceInput[] };

/** createDataset, answering the entities as committed, for each entry point to present its own way. */
export async function insertDataset(ctx: DomainContext, actor: Actor, input: NewDataset, kept: KeptIds = {}) {
  if (kept.id !== undefined || kept.resourceIds?.some((id) => id !== undefined)) authorize(actor, 'dataset:keep-ids');
  const missing = missingForActive(input);
  const resourceErrors = (input.resources ?? []).flatMap((r, i) => resourceInputErrors(r, `resources.${i}.`));
  if (missing.length || resourceErrors.length) throw validationFailed([...missing, ...resourceErrors]);
  const roles = await orgRolesOf(ctx, actor);

  const { committed, forSearch } = await ctx.em.transactional(async (em) => {
    const tx = { ...ctx, em };
    carryProfileReads(ctx, tx);
    const dataset = em.create(
      Dataset,
      {
        ...(kept.id ? { id: kept.id } : {}),
        name: input.name!,
        state: 'active',
        creator: actor.userId,
        publishedAt: new Date(),
        searchVector: null,
      },
      { persist: false },
    );
    await applyDatasetFields(tx, actor, roles, dataset, input, 'partial');
    const built = (input.resources ?? []).map((r, i) => buildResource(em, dataset, r, i, kept.resourceIds?.[i], { persist: false }));
    const profileErrors = await resourceProfileErrors(
      tx,
      dataset,
      built.map((r, i) => ({ before: {}, after: r.customFields, prefix: `resources.${i}.customFields` })),
    );
    if (profileErrors.length) throw validationFailed(profileErrors);
    const urls = (input.resources ?? []).map((r) => r.url).filter(Boolean);
    const dup = urls.findIndex((u, i) => urls.indexOf(u) !== i);
    if (dup >= 0) throw duplicateUrl(`resources.${dup}.url`);
    await mappingClashes(kept, () => insertNew(em, dataset, built));
    // The resources are the ones just built, in position order: no need to read them back.
    return {
      committed: { dataset, organization: (dataset.ownerOrg as Group | null | undefined) ?? null, resources: built },
      forSearch: await datasetForSearch(ctx.storage, dataset, built),
    };
  });
  await syncKeywordsNow(ctx, forSearch);
  return committed;
}

/**
 * A new dataset, its resources and its tag and category links as plain inserts, outside the unit of work:
 * its flush (change sets, commit order, snapshots) was a third of a create's CPU, and nothing in this unit
 * of work reads these entities again.
 */
async function insertNew(em: EntityManager, dataset: Dataset, resources: Resource[]) {
  const now = new Date();
  await em.insert(stampNew(dataset, now));
  if (resources.length) await em.insertMany(resources.map((r) => stampNew(r, now)));
  const links = [
    ['dataset_tags', 'tag_id', dataset.tags.getItems()],
    ['dataset_groups', 'group_id', dataset.groups.getItems()],
  ] as const;
  for (const [table, column, linked] of links) {
    if (linked.length) {
      await em.execute(`insert into ${table} (dataset_id, ${column}) select ?, unnest(?::uuid[])`, [
        dataset.id,
        pgArray(linked.map((l) => l.id)),
      ]);
    }
  }
}

/** POST /packages/drafts: any signed-in user; every field optional, a placeholder name when none is given. */
export async function createDraft(ctx: DomainContext, actor: Actor, input: DatasetInput) {
  authorize(actor, 'dataset:create-draft');
  const roles = await orgRolesOf(ctx, actor);
  return ctx.em.transactional(async (em) => {
    const tx = { ...ctx, em };
    const dataset = em.create(Dataset, { name: '', state: 'draft', creator: actor.userId, searchVector: null });
    await applyDatasetFields(tx, actor, roles, dataset, { ...input, name: input.name ?? null }, 'partial');
    await flushDataset(tx);
    return detail(tx, dataset);
  });
}

/** `?state=draft` needs auth (spec §4): 401 for an anonymous caller, whatever the name; then 404 unless visible. */
export async function getDataset(ctx: DomainContext, actor: Actor, nameOrId: string, opts: { draft: boolean }) {
  if (opts.draft && actor.userId === null) throw unauthenticated();
  const found = await loadDatasetDetail(ctx.em, nameOrId, actor.userId);
  const states: DatasetState[] = opts.draft ? ['draft'] : ['active', 'deleted'];
  if (!found || !states.includes(found.fields.state) || !can(actor, 'dataset:read', found.subject)) throw notFound('Dataset');
  return presentDataset(found.fields, { resources: found.resources });
}

/** PUT: partial on a draft, a full replacement on an active dataset; resources are never touched here. */
export async function updateDataset(ctx: DomainContext, actor: Actor, nameOrId: string, input: DatasetInput) {
  const record = await ctx.em.transactional(async (em) => {
    const tx = { ...ctx, em };
    const { dataset, subject, roles } = await loadVisibleDataset(tx, actor, nameOrId, ['draft', 'active']);
    authorize(actor, 'dataset:edit', subject);
    await assertNotHarvested(tx, dataset);
    await applyDatasetFields(tx, actor, roles, dataset, input, dataset.state === 'draft' ? 'partial' : 'full');
    await flushDataset(tx);
    return detail(tx, dataset);
  });
  if (record.state === 'active') await afterCommit(ctx, () => ctx.jobs.syncSearch(record.id));
  return record;
}

/**
 * Draft → active, once the three requirements of spec §3 hold (400 naming each one missing) and the
 * caller is an editor of the owning organization at this moment; then `publish-sync-<id>` indexes it.
 * Publishing an active dataset changes nothing but re-runs that sync. The transition is one-way.
 */
export async function publishDataset(ctx: DomainContext, actor: Actor, nameOrId: string) {
  const record = await ctx.em.transactional(async (em) => {
    const tx = { ...ctx, em };
    const { dataset, roles } = await loadVisibleDataset(tx, actor, nameOrId, ['draft', 'active']);
    const missing = [
      ...(dataset.nameGenerated ? [{ path: 'name', message: 'must be set explicitly; the placeholder cannot be published' }] : []),
      ...(dataset.ownerOrg ? [] : [{ path: 'ownerOrg', message: 'is required to publish' }]),
      ...(dataset.licenseId ? [] : [{ path: 'licenseId', message: 'is required to publish' }]),
      // The profiles' required fields, once: an active dataset's re-publish (the sync's retry) is not held by a later profile change.
      ...(dataset.state === 'draft'
        ? await profileRequirementsMissing(tx, dataset, await em.find(Resource, { dataset: dataset.id }, { orderBy: { position: 'asc' } }))
        : []),
    ];
    if (missing.length) {
      throw publishRequirementsMissing(missing);
    }
    authorize(actor, 'dataset:publish', datasetSubject(dataset, roles));
    if (dataset.state === 'draft') {
      dataset.state = 'active';
      dataset.publishedAt = new Date();
      dataset.deletionIncomplete = false;
      await flushDataset(tx);
    }
    return detail(tx, dataset);
  });
  // Also the retry point after a sync that failed: publishing an active dataset re-runs it.
  await afterCommit(ctx, () => ctx.jobs.syncSearch(record.id));
  return record;
}

/**
 * DELETE: an active dataset is soft-deleted (a deleted one stays deleted); a draft is removed for good
 * at once, by the workflow `delete-draft-<id>`.
 */
export async function deleteDataset(ctx: DomainContext, actor: Actor, nameOrId: string) {
  const { dataset, subject } = await loadVisibleDataset(ctx, actor, nameOrId, ['draft', 'active', 'deleted']);
  authorize(actor, 'dataset:delete', subject);
  if (dataset.state === 'draft') return ctx.jobs.deleteDraft(dataset.id, actor.userId);
  if (dataset.state === 'deleted') return;
  softDeleteDataset(dataset);
  await ctx.em.flush();
  await ctx.jobs.syncSearch(dataset.id);
}

/** An active dataset soft-deleted (not flushed); the caller syncs search after its commit. */
export function softDeleteDataset(dataset: Dataset) {
  dataset.state = 'deleted';
  dataset.deletedAt = new Date();
}

export async function restoreDataset(ctx: DomainContext, actor: Actor, nameOrId: string) {
  authorize(actor, 'dataset:restore');
  const { dataset } = await loadVisibleDataset(ctx, actor, nameOrId, ['active', 'deleted']);
  if (dataset.state !== 'deleted') throw conflict('Only a deleted dataset can be restored.');
  dataset.state = 'active';
  dataset.deletedAt = null;
  await ctx.em.flush();
  await ctx.jobs.syncSearch(dataset.id);
  return detail(ctx, dataset);
}

/** Permanent removal of a soft-deleted dataset (org admin), by the workflow `purge-dataset-<id>`. */
export async function purgeDataset(ctx: DomainContext, actor: Actor, nameOrId: string) {
  const { dataset, subject } = await loadVisibleDataset(ctx, actor, nameOrId, ['active', 'deleted']);
  authorize(actor, 'dataset:purge', subject);
  if (dataset.state !== 'deleted') throw conflict('Only a deleted dataset can be purged; delete it first.');
  await ctx.jobs.purgeDataset(dataset.id, actor.userId);
}
