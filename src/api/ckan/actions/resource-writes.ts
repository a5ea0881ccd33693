import { Resource } from '../../../entities/index.ts';
import type { Actor } from '../../../domain/actor.ts';
import { loadDatasetBeforeWrite } from '../../../domain/catalog/writable-dataset.ts';
import type { DomainContext } from '../../../domain/context.ts';
import { validationFailed } from '../../../domain/errors.ts';
import {
  addResource,
  deleteResource,
  listResources,
  loadVisibleResource,
  reorderResources,
  replaceResource,
} from '../../../domain/resources/resources.ts';
import { completeReceivedUpload, loadEditableResource, receiveUpload, uploadThroughApi } from '../../../domain/resources/uploads.ts';
import { ResourceBody } from '../../v1/packages/schema.ts';
import type { ActionFile } from '../multipart.ts';
import { resourceDict } from '../package-dict.ts';
import { flag, parseBody, resourceBody } from '../package-input.ts';
import { profileNamesFor, staysUpload, type Dict } from '../package-write.ts';
import type { ActionParams } from '../params.ts';
import { required, type Action } from './action.ts';

/**
 * CKAN's resource write actions over REST's resource functions (POST /packages/{id}/resources,
 * PUT/DELETE /resources/{id}, PUT …/reorder). A file sent as `upload` in multipart/form-data streams to
 * storage as POST /resources/{id}/upload's does, then the pipeline runs on it.
 */

/** The resource dict after a write, read again (the upload and the pipeline wrote it in SQL). */
async function freshResource(ctx: DomainContext, id: string) {
  return resourceDict(await ctx.em.findOneOrFail(Resource, { id }, { refresh: true }));
}

/** The file's bytes into the resource, through the proxied upload's own function. */
const store = (ctx: DomainContext, actor: Actor, id: string, file: ActionFile) =>
  uploadThroughApi(ctx, actor, id, file.stream, { contentType: file.contentType, filename: file.filename });

const dictWithout = (params: ActionParams, ...keys: string[]): Dict =>
  Object.fromEntries(Object.entries(params.raw).filter(([k]) => !keys.includes(k)));

async function resourceInput(ctx: DomainContext, orgId: string | null, dict: Dict, upload: boolean) {
  const profile = await profileNamesFor(ctx, orgId);
  return parseBody(ResourceBody, resourceBody(dict, profile.resource, upload));
}

const orgIdOf = (dataset: { ownerOrg?: unknown }) => (dataset.ownerOrg as { id: string } | null | undefined)?.id ?? null;

const resourceCreate: Action = {
  help: 'Adds a resource to a dataset: package_id, url (or a file as `upload` in multipart/form-data), name, description, format, the distribution record, extras.',
  write: true,
  async run({ domain, actor, params }) {
    const packageId = required(params, 'package_id');
    const { dataset } = await loadDatasetBeforeWrite(domain, actor, packageId);
    const dict = dictWithout(params, 'package_id', 'upload', 'id');
    const input = await resourceInput(domain, orgIdOf(dataset), dict, !!params.file || staysUpload(dict));
    const created = await addResource(domain, actor, dataset.id, input);
    if (params.file) {
      // A file that cannot be stored leaves no empty upload resource behind.
      try {
        await store(domain, actor, created.id, params.file);
      } catch (err) {
        await deleteResource(domain, actor, created.id).catch(() => undefined);
        throw err;
      }
    }
    return freshResource(domain, created.id);
  },
};

/**
 * An upload resource sent with another URL than its download's, or with CKAN's `clear_upload`, becomes a
 * link to that URL (its file goes), where it stayed an upload and the URL was dropped without a word.
 */
function becomesLink(dict: Dict, resource: Resource) {
  if (resource.urlType !== 'upload') return false;
  if (flag(dict.clear_upload) === true) return true;
  // An http(s) URL: CKAN's upload dicts may carry the file's bare name in `url`, which changes nothing.
  return typeof dict.url === 'string' && /^https?:\/\//i.test(dict.url) && dict.url !== resourceDict(resource).url;
}

/**
 * resource_update's write: `dict` replaces the resource (a field left out is cleared), with the file if
 * one came. The bytes are stored first, once the actor may change the resource: a file that cannot be
 * stored (past the limit, a client gone) leaves the resource as it was, as CKAN's one transaction does.
 */
async function updateResource(ctx: DomainContext, actor: Actor, id: string, dict: Dict, file: ActionFile | undefined) {
  // With a file, the right to change the resource is checked before any byte is stored.
  const { resource, dataset } = await (file ? loadEditableResource : loadVisibleResource)(ctx, actor, id);
  const input = await resourceInput(ctx, orgIdOf(dataset), dict, !!file || (staysUpload(dict, resource) && !becomesLink(dict, resource)));
  if (!file) {
    await replaceResource(ctx, actor, resource.id, input);
    return freshResource(ctx, resource.id);
  }
  const received = await receiveUpload(ctx, resource.id, file.stream, { contentType: file.contentType, filename: file.filename });
  try {
    await replaceResource(ctx, actor, resource.id, input);
  } catch (err) {
    await ctx.storage.remove(received.key).catch(() => undefined);
    throw err;
  }
  await completeReceivedUpload(ctx, actor, resource.id, received);
  return freshResource(ctx, resource.id);
}

const resourceUpdate: Action = {
  help: 'Replaces a resource (id required): a field left out is cleared; a file as `upload` replaces its bytes and runs the pipeline.',
  write: true,
  async run({ domain, actor, params }) {
    const id = required(params, 'id');
    return updateResource(domain, actor, id, dictWithout(params, 'upload', 'package_id'), params.file);
  },
};

const resourcePatch: Action = {
  help: 'Changes the resource fields given and keeps the others (resource_show, the keys over it, resource_update); `upload` as in resource_update.',
  write: true,
  async run({ domain, actor, params }) {
    const id = required(params, 'id');
    const { resource } = await loadVisibleResource(domain, actor, id);
    const current = resourceDict(resource) as unknown as Dict;
    return updateResource(domain, actor, resource.id, { ...current, ...dictWithout(params, 'upload', 'package_id') }, params.file);
  },
};

const resourceDelete: Action = {
  help: 'Deletes a resource and its files.',
  write: true,
  async run({ domain, actor, params }) {
    await deleteResource(domain, actor, required(params, 'id'));
    return null;
  },
};

const packageResourceReorder: Action = {
  help: 'Orders a dataset’s resources: id (the dataset), order (resource ids; those left out follow in their current order).',
  write: true,
  async run({ domain, actor, params }) {
    const id = required(params, 'id');
    const order = params.list('order', { jsonText: true });
    params.check();
    if (!order?.length) throw validationFailed([{ path: 'order', message: 'Missing value' }]);
    if (new Set(order).size !== order.length) throw validationFailed([{ path: 'order', message: 'Must supply unique resource_ids' }]);
    const current = (await listResources(domain, actor, id)).results.map((r) => r.id);
    const unknown = order.find((r) => !current.includes(r));
    if (unknown) throw validationFailed([{ path: 'order', message: `resource_id ${unknown} can not be found` }]);
    const full = [...order, ...current.filter((r) => !order.includes(r))];
    const { dataset } = await loadDatasetBeforeWrite(domain, actor, id);
    await reorderResources(domain, actor, dataset.id, full);
    return { id, order: full };
  },
};

export const resourceWriteActions: Record<string, Action> = {
  resource_create: resourceCreate,
  resource_update: resourceUpdate,
  resource_patch: resourcePatch,
  resource_delete: resourceDelete,
  package_resource_reorder: packageResourceReorder,
};
