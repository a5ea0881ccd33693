import { z } from 'zod';
import {
  createDataset,
  createDraft,
  deleteDataset,
  getDataset,
  publishDataset,
  purgeDataset,
  restoreDataset,
  updateDataset,
} from '../../../domain/datasets/lifecycle.ts';
import { addResource, listResources, reorderResources } from '../../../domain/resources/resources.ts';
import { defineRoute } from '../../../http/route.ts';
import { listOf, nameOrIdParams } from '../../../http/schemas.ts';
import { listDatasets } from '../../../domain/datasets/list.ts';
import { CreateDatasetBody, DatasetFields, DatasetList, DatasetRecord, ListQuery, ResourceBody, ResourceRecord } from './schema.ts';

const idParams = z.object({ id: z.string().min(1).max(200) });

export const packageRoutes = [
  defineRoute({
    method: 'get', path: '/packages', tag: 'packages', access: 'public',
    summary: 'List and search datasets the caller may see; state=draft lists the caller’s drafts (limited filters)',
    query: ListQuery,
    response: DatasetList,
    handle: ({ domain, actor, query }) => listDatasets(domain, actor, query),
  }),
  defineRoute({
    method: 'post', path: '/packages', tag: 'packages', access: 'user', status: 201,
    summary: 'Create an active dataset (org editor); resources in the body are created in the same transaction',
    body: CreateDatasetBody,
    response: DatasetRecord,
    handle: ({ domain, actor, body }) => createDataset(domain, actor, body),
  }),
  defineRoute({
    method: 'post', path: '/packages/drafts', tag: 'packages', access: 'user', status: 201,
    summary: 'Create a draft; every field optional, a placeholder name `untitled-…` when none is given',
    body: DatasetFields,
    response: DatasetRecord,
    handle: ({ domain, actor, body }) => createDraft(domain, actor, body),
  }),
  defineRoute({
    method: 'get', path: '/packages/{nameOrId}', tag: 'packages', access: 'public',
    summary: 'Dataset detail with its resources; `?state=draft` needs auth (401) and finds a draft the caller may see',
    params: nameOrIdParams,
    query: z.object({ state: z.enum(['draft']).optional() }),
    response: DatasetRecord,
    handle: ({ domain, actor, params, query }) => getDataset(domain, actor, params.nameOrId, { draft: query.state === 'draft' }),
  }),
  defineRoute({
    method: 'put', path: '/packages/{nameOrId}', tag: 'packages', access: 'user',
    summary: 'Update: partial on a draft (null clears; name null regenerates the placeholder), full replacement on an active dataset',
    params: nameOrIdParams,
    body: DatasetFields,
    response: DatasetRecord,
    handle: ({ domain, actor, params, body }) => updateDataset(domain, actor, params.nameOrId, body),
  }),
  defineRoute({
    method: 'delete', path: '/packages/{nameOrId}', tag: 'packages', access: 'user',
    summary: 'Delete: an active dataset is soft-deleted; a draft is removed for good at once (a repeat finishes a deletion left incomplete)',
    params: nameOrIdParams,
    handle: ({ domain, actor, params }) => deleteDataset(domain, actor, params.nameOrId),
  }),
  defineRoute({
    method: 'post', path: '/packages/{nameOrId}/publish', tag: 'packages', access: 'user',
    summary: 'Publish a draft: needs an explicit name, ownerOrg and licenseId (400 names each missing one) and editor rights',
    params: nameOrIdParams,
    response: DatasetRecord,
    handle: ({ domain, actor, params }) => publishDataset(domain, actor, params.nameOrId),
  }),
  defineRoute({
    method: 'post', path: '/packages/{nameOrId}/restore', tag: 'packages', access: 'sysadmin',
    summary: 'Restore a soft-deleted dataset to active (sysadmin)',
    params: nameOrIdParams,
    response: DatasetRecord,
    handle: ({ domain, actor, params }) => restoreDataset(domain, actor, params.nameOrId),
  }),
  defineRoute({
    method: 'post', path: '/packages/{nameOrId}/purge', tag: 'packages', access: 'user',
    summary: 'Permanently delete a soft-deleted dataset and its resources (org admin); runs as purge-dataset-<id>',
    params: nameOrIdParams,
    handle: ({ domain, actor, params }) => purgeDataset(domain, actor, params.nameOrId),
  }),
  defineRoute({
    method: 'get', path: '/packages/{id}/resources', tag: 'packages', access: 'public',
    summary: 'Resources of a dataset, in order',
    params: idParams,
    response: listOf(ResourceRecord),
    handle: ({ domain, actor, params }) => listResources(domain, actor, params.id),
  }),
  defineRoute({
    method: 'post', path: '/packages/{id}/resources', tag: 'packages', access: 'user', status: 201,
    summary: 'Add a resource (org editor); a duplicate URL in the dataset is 409',
    params: idParams,
    body: ResourceBody,
    response: ResourceRecord,
    handle: ({ domain, actor, params, body }) => addResource(domain, actor, params.id, body),
  }),
  defineRoute({
    method: 'put', path: '/packages/{id}/resources/reorder', tag: 'packages', access: 'user',
    summary: 'Reorder resources: `order` lists every resource id once',
    params: idParams,
    body: z.strictObject({ order: z.array(z.uuid()).max(1000) }),
    response: listOf(ResourceRecord),
    handle: ({ domain, actor, params, body }) => reorderResources(domain, actor, params.id, body.order),
  }),
];
