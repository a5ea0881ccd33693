import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { raw, type EntityManager } from '@mikro-orm/postgresql';
import { Dataset, Resource, type UrlType } from '../../entities/index.ts';
import { authorize } from '../../policies/index.ts';
import { visibleDatasetsFilter } from '../../policies/datasets.ts';
import type { Actor } from '../actor.ts';
import { afterCommit } from '../after-commit.ts';
import type { DomainContext } from '../context.ts';
import { conflict, notFound, validationFailed, type FieldError } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { loadVisibleDataset, orgRolesOf } from '../datasets/access.ts';
import { assertNotHarvested } from '../datasets/harvested.ts';
import { invalidateOutputs } from '../pipeline/record.ts';
import { startPipeline } from '../pipeline/start.ts';
import { liveSourceKey } from './stored-objects.ts';
import { assignFields, storedValues, type FieldInput } from '../datasets/field-table.ts';
import { assertResourceProfile } from '../metadata/profiles-enforce.ts';
import { applyDistributionMetadata, type DistributionMetadataInput } from '../metadata/record-io.ts';
import { RESOURCE_FIELDS } from './field-table.ts';
import { removeResourceFiles } from './file-removal.ts';
import { loadReadableResource } from './access-query.ts';
import { presentResource } from './present.ts';

export interface ResourceInput extends FieldInput<typeof RESOURCE_FIELDS>, DistributionMetadataInput {
  url?: string | null;
  urlType: UrlType;
}

const ALL_STATES = ['draft', 'active', 'deleted'] as const;

/** A link needs its URL; an upload gets its URL from the service once the bytes arrive. */
export function resourceInputErrors(input: ResourceInput, prefix = ''): FieldError[] {
  const path = `${prefix}url`;
  if (input.urlType === 'link' && !input.url) return [{ path, message: 'is required for a link' }];
  if (input.urlType === 'upload' && input.url) return [{ path, message: 'is set by the service for an upload' }];
  return [];
}

/**
 * Builds (not flushes) a resource; the caller's flush reports a duplicate URL in the dataset. `persist:
 * false` for one its caller inserts itself (a new dataset's: insertDataset).
 */
export function buildResource(
  em: EntityManager,
  dataset: Dataset,
  input: ResourceInput,
  position: number,
  id?: string,
  options: { persist?: boolean } = {},
) {
  const resource = em.create(
    Resource,
    {
      ...(id ? { id } : {}),
      dataset,
      ...storedValues(RESOURCE_FIELDS, input),
      url: input.url ?? null,
      urlType: input.urlType,
      position,
      extras: {},
      metadata: {},
      customExtras: [],
      customFields: {},
    },
    options,
  );
  applyDistributionMetadata(resource, input, true);
  return resource;
}

export const duplicateUrl = (path = 'url') =>
  conflict('This dataset already has a resource with this URL.', [{ path, message: 'is already used in this dataset' }]);

/**
 * A resource the actor may see: the visibility of its dataset decides. `lean` loads the dataset only as
 * far as that rule needs (its organization), for reads that never present the dataset.
 */
export async function loadVisibleResource(ctx: DomainContext, actor: Actor, id: string, lean = false) {
  const resource = isUuid(id) ? await ctx.em.findOne(Resource, { id }) : null;
  if (!resource) throw notFound('Resource');
  const datasetId = (resource.dataset as Dataset).id;
  const { dataset, subject } = await loadVisibleDataset(ctx, actor, datasetId, [...ALL_STATES], lean ? ['ownerOrg'] : undefined).catch(
    () => {
      throw notFound('Resource');
    },
  );
  return { resource, dataset, subject };
}

async function loadEditableDataset(ctx: DomainContext, actor: Actor, datasetId: string) {
  const loaded = await loadVisibleDataset(ctx, actor, datasetId, ['draft', 'active']);
  authorize(actor, 'dataset:edit', loaded.subject);
  await assertNotHarvested(ctx, loaded.dataset);
  return loaded;
}

export async function listResources(ctx: DomainContext, actor: Actor, datasetId: string) {
  const { dataset } = await loadVisibleDataset(ctx, actor, datasetId, [...ALL_STATES]);
  const rows = await ctx.em.find(Resource, { dataset: dataset.id }, { orderBy: { position: 'asc' } });
  return { count: rows.length, offset: 0, limit: rows.length, results: rows.map(presentResource) };
}

export async function getResource(ctx: DomainContext, actor: Actor, id: string) {
  return presentResource((await loadReadableResource(ctx, actor, id)).resource);
}

export async function addResource(ctx: DomainContext, actor: Actor, datasetId: string, input: ResourceInput) {
  const errors = resourceInputErrors(input);
  if (errors.length) throw validationFailed(errors);
  const { dataset } = await loadEditableDataset(ctx, actor, datasetId);
  const last = await ctx.em.findOne(Resource, { dataset: dataset.id }, { orderBy: { position: 'desc' } });
  const resource = buildResource(ctx.em, dataset, input, (last?.position ?? -1) + 1);
  await assertResourceProfile(ctx, dataset, resource, {});
  await flushResources(ctx);
  await syncIfSearchable(ctx, dataset);
  return presentResource(resource);
}

/**
 * PUT: a full replacement of the client's fields; extras, size and hash stay the system's. Another link,
 * or another declared format, changes what the resource is: what the pipeline made of it stops being
 * served at once (preview, schema, file text), and a resource the pipeline had processed is processed again.
 */
export async function replaceResource(ctx: DomainContext, actor: Actor, id: string, input: ResourceInput) {
  const errors = resourceInputErrors(input);
  if (errors.length) throw validationFailed(errors);
  const { resource, dataset, subject } = await loadVisibleResource(ctx, actor, id);
  authorize(actor, 'dataset:edit', subject);
  if (subject.state === 'deleted') throw notFound('Resource');
  await assertNotHarvested(ctx, dataset);
  const before = { url: resource.url ?? null, urlType: resource.urlType, format: resource.format ?? null };
  const customBefore = resource.customFields ?? {};
  assignFields(RESOURCE_FIELDS, resource, input);
  applyDistributionMetadata(resource, input, true);
  await assertResourceProfile(ctx, dataset, resource, customBefore);
  if (input.urlType === 'link' || resource.urlType === 'link') resource.url = input.url ?? null;
  resource.urlType = input.urlType;
  await flushResources(ctx);
  const changed = before.url !== (resource.url ?? null) || before.urlType !== resource.urlType || before.format !== resource.format;
  // A resource the pipeline never processed has nothing to take back.
  if (changed && resource.extras.pipeline)
    await reprocess(ctx, resource, before.urlType === 'link' && before.url !== (resource.url ?? null));
  await syncIfSearchable(ctx, dataset);
  return presentResource(resource);
}

/** The outputs of the old bytes go (with the copy of the old link when `linkChanged`) unless a version keeps them, and the pipeline runs again. */
async function reprocess(ctx: DomainContext, resource: Resource, linkChanged: boolean) {
  const keys = await invalidateOutputs(ctx.em, resource.id, linkChanged ? [liveSourceKey(resource)] : []);
  await afterCommit(ctx, () => Promise.all(keys.map((key) => ctx.storage.remove(key))));
  if (resource.url) await startPipeline(ctx, resource.id);
  // Both wrote extras in SQL: the record presented must show them.
  await ctx.em.refresh(resource);
}

/**
 * Files first: if removing them fails the request can be repeated, and no row is left without its file.
 * Once the row is gone they are removed again: a write that landed in between (a pipeline step, an
 * upload) is not left behind; later ones find no row and remove their own bytes.
 */
export async function deleteResource(ctx: DomainContext, actor: Actor, id: string) {
  const { resource, dataset, subject } = await loadVisibleResource(ctx, actor, id);
  authorize(actor, 'dataset:edit', subject);
  if (subject.state === 'deleted') throw notFound('Resource');
  await assertNotHarvested(ctx, dataset);
  // One step of a larger change: the files go once it has committed (a rollback keeps row and files).
  if (!ctx.afterCommit) await removeResourceFiles(ctx.storage, [resource.id]);
  // A transaction of its own (a savepoint inside a larger one): the history's triggers read who deleted it from there.
  await ctx.em.transactional((tx) => tx.nativeDelete(Resource, { id: resource.id }));
  await afterCommit(ctx, () => removeResourceFiles(ctx.storage, [resource.id]));
  await syncIfSearchable(ctx, dataset);
}

/** The new order must name every resource of the dataset exactly once. */
export async function reorderResources(ctx: DomainContext, actor: Actor, datasetId: string, order: string[]) {
  const { dataset } = await loadEditableDataset(ctx, actor, datasetId);
  const rows = await ctx.em.find(Resource, { dataset: dataset.id });
  const ids = new Set(rows.map((r) => r.id));
  if (order.length !== ids.size || new Set(order).size !== order.length || !order.every((id) => ids.has(id))) {
    throw validationFailed([{ path: 'order', message: 'must list every resource of the dataset exactly once' }]);
  }
  for (const r of rows) r.position = order.indexOf(r.id);
  await ctx.em.flush();
  return listResources(ctx, actor, dataset.id);
}

/** Resources of active datasets the actor may see. */
async function visibleActiveResourceFilter(ctx: DomainContext, actor: Actor) {
  const roles = await orgRolesOf(ctx, actor);
  return { dataset: { $and: [visibleDatasetsFilter(actor, roles), { state: 'active' as const }] } };
}

export async function countResources(ctx: DomainContext, actor: Actor) {
  return { count: await ctx.em.count(Resource, await visibleActiveResourceFilter(ctx, actor)) };
}

/** Formats in use on resources of visible active datasets, most used first. */
export async function resourceFormats(ctx: DomainContext, actor: Actor) {
  const rows: Array<{ format: string; count: string }> = await ctx.em
    .createQueryBuilder(Resource, 'r')
    .select(['r.format', raw('count(*) as count')])
    .where({ ...(await visibleActiveResourceFilter(ctx, actor)), format: { $ne: null } })
    .groupBy('r.format')
    .execute();
  const results = rows
    .map((r) => ({ format: r.format, count: Number(r.count) }))
    .sort((a, b) => b.count - a.count || a.format.localeCompare(b.format));
  return { count: results.length, offset: 0, limit: results.length, results };
}

/** Resource names and descriptions are part of an active dataset's search document. */
async function syncIfSearchable(ctx: DomainContext, dataset: Dataset) {
  if (dataset.state === 'active') await afterCommit(ctx, () => ctx.jobs.syncSearch(dataset.id));
}

async function flushResources(ctx: DomainContext) {
  try {
    await ctx.em.flush();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw duplicateUrl();
    throw err;
  }
}
