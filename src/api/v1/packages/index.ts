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
import { datasetAtVersion } from '../../../domain/activity/history.ts';
import { addResource, listResources, reorderResources } from '../../../domain/resources/resources.ts';
import { defineRoute } from '../../../http/route.ts';
import { listOf, nameOrIdParams } from '../../../http/schemas.ts';
import { listDatasets } from '../../../domain/datasets/list.ts';
import { schemaOrgDataset } from '../../../feeds/schema-org.ts';
import {
  CreateDatasetBody,
  DatasetFields,
  DatasetList,
  DatasetRecord,
  ListQuery,
  ResourceBody,
  ResourceRecord,
  SchemaOrgDataset,
} from './schema.ts';

const idParams = z.object({ id: z.string().min(1).max(200) });

export const packageRoutes = [
  defineRoute({
    method: 'get',
    path: '/packages',
    problems: ['unsupported_filter'],
    tag: 'packages',
    access: 'public',
    summary: 'List and search datasets the caller may see; state=draft lists the caller’s drafts (limited filters)',
    query: ListQuery,
    response: DatasetList,
    handle: ({ domain, actor, query }) => listDatasets(domain, actor, query),
  }),
  defineRoute({
    method: 'post',
    path: '/packages',
    links: {
      'GET /packages/{nameOrId}': { nameOrId: '$response.body#/id' },
      'PUT /packages/{nameOrId}': { nameOrId: '$response.body#/id' },
      'DELETE /packages/{nameOrId}': { nameOrId: '$response.body#/id' },
      'GET /packages/{id}/resources': { id: '$response.body#/id' },
      'POST /packages/{id}/resources': { id: '$response.body#/id' },
    },
    problems: ['conflict', 'search_sync_failed'],
    tag: 'packages',
    access: 'user',
    status: 201,
    summary:
      'Create an active dataset (org editor); resources in the body are created in the same transaction. Names are unique across the whole catalog, so a 409 on a taken name also tells that a dataset you may not see (private, a draft) holds it',
    body: CreateDatasetBody,
    response: DatasetRecord,
    handle: ({ domain, actor, body }) => createDataset(domain, actor, body),
  }),
  defineRoute({
    method: 'post',
    path: '/packages/drafts',
    links: {
      'GET /packages/{nameOrId}': { nameOrId: '$response.body#/id', 'query.state': 'draft' },
      'PUT /packages/{nameOrId}': { nameOrId: '$response.body#/id' },
      'POST /packages/{nameOrId}/publish': { nameOrId: '$response.body#/id' },
      'DELETE /packages/{nameOrId}': { nameOrId: '$response.body#/id' },
      'POST /packages/{id}/resources': { id: '$response.body#/id' },
    },
    problems: ['conflict'],
    tag: 'packages',
    access: 'user',
    status: 201,
    summary: 'Create a draft; every field optional, a placeholder name `untitled-…` when none is given',
    body: DatasetFields,
    response: DatasetRecord,
    handle: ({ domain, actor, body }) => createDraft(domain, actor, body),
  }),
  defineRoute({
    method: 'get',
    path: '/packages/{nameOrId}',
    tag: 'packages',
    access: 'public',
    summary:
      'Dataset detail with its resources; `?state=draft` needs auth (401) and finds a draft the caller may see; `?version=<activityId>` gives the record as that change left it (404 for a version you could not see then). `Accept: application/ld+json` answers the same dataset as a schema.org Dataset',
    params: nameOrIdParams,
    query: z.object({ state: z.enum(['draft']).optional(), version: z.string().min(1).max(200).optional() }),
    response: DatasetRecord,
    alternates: {
      'application/ld+json': {
        schema: SchemaOrgDataset,
        render: (record, { domain }) =>
          schemaOrgDataset(
            { publicUrl: domain.config.http.publicUrl, siteName: domain.config.site.name },
            { ...record, resources: record.resources ?? [] },
          ),
      },
    },
    handle: ({ domain, actor, params, query }) =>
      query.version
        ? (datasetAtVersion(domain, actor, params.nameOrId, query.version) as Promise<z.infer<typeof DatasetRecord>>)
        : getDataset(domain, actor, params.nameOrId, { draft: query.state === 'draft' }),
  }),
  defineRoute({
    method: 'put',
    path: '/packages/{nameOrId}',
    problems: ['conflict', 'harvested_dataset', 'jobs_unavailable', 'search_sync_failed'],
    tag: 'packages',
    access: 'user',
    summary:
      'Update: partial on a draft (null clears; name null regenerates the placeholder), full replacement on an active dataset. A harvested dataset is 409 harvested_dataset (its source manages it) until the source is deleted without purge',
    params: nameOrIdParams,
    body: DatasetFields,
    response: DatasetRecord,
    handle: ({ domain, actor, params, body }) => updateDataset(domain, actor, params.nameOrId, body),
  }),
  defineRoute({
    method: 'delete',
    path: '/packages/{nameOrId}',
    links: {
      'POST /packages/{nameOrId}/restore': { nameOrId: '$request.path.nameOrId' },
      'POST /packages/{nameOrId}/purge': { nameOrId: '$request.path.nameOrId' },
    },
    problems: ['jobs_unavailable', 'deletion_incomplete', 'search_sync_failed'],
    tag: 'packages',
    access: 'user',
    summary:
      'Delete: an active dataset is soft-deleted; a draft is removed for good at once (a repeat finishes a deletion left incomplete)',
    params: nameOrIdParams,
    handle: ({ domain, actor, params }) => deleteDataset(domain, actor, params.nameOrId),
  }),
  defineRoute({
    method: 'post',
    path: '/packages/{nameOrId}/publish',
    problems: ['publish_requirements_missing', 'conflict', 'jobs_unavailable', 'search_sync_failed'],
    tag: 'packages',
    access: 'user',
    summary: 'Publish a draft: needs an explicit name, ownerOrg and licenseId (400 names each missing one) and editor rights',
    params: nameOrIdParams,
    response: DatasetRecord,
    handle: ({ domain, actor, params }) => publishDataset(domain, actor, params.nameOrId),
  }),
  defineRoute({
    method: 'post',
    path: '/packages/{nameOrId}/restore',
    problems: ['conflict', 'jobs_unavailable', 'search_sync_failed'],
    tag: 'packages',
    access: 'sysadmin',
    summary: 'Restore a soft-deleted dataset to active (sysadmin)',
    params: nameOrIdParams,
    response: DatasetRecord,
    handle: ({ domain, actor, params }) => restoreDataset(domain, actor, params.nameOrId),
  }),
  defineRoute({
    method: 'post',
    path: '/packages/{nameOrId}/purge',
    problems: ['conflict', 'jobs_unavailable', 'purge_incomplete'],
    tag: 'packages',
    access: 'user',
    summary: 'Permanently delete a soft-deleted dataset and its resources (org admin); runs as purge-dataset-<id>',
    params: nameOrIdParams,
    handle: ({ domain, actor, params }) => purgeDataset(domain, actor, params.nameOrId),
  }),
  defineRoute({
    method: 'get',
    path: '/packages/{id}/resources',
    tag: 'packages',
    access: 'public',
    summary: 'Resources of a dataset, in order',
    params: idParams,
    response: listOf(ResourceRecord),
    handle: ({ domain, actor, params }) => listResources(domain, actor, params.id),
  }),
  defineRoute({
    method: 'post',
    path: '/packages/{id}/resources',
    links: {
      'GET /resources/{id}': { id: '$response.body#/id' },
      'PUT /resources/{id}': { id: '$response.body#/id' },
      'DELETE /resources/{id}': { id: '$response.body#/id' },
      'POST /resources/{id}/upload-url': { id: '$response.body#/id' },
      'POST /resources/{id}/upload': { id: '$response.body#/id' },
      'GET /resources/{id}/pipeline-status': { id: '$response.body#/id' },
      'GET /resources/{id}/download': { id: '$response.body#/id' },
    },
    problems: ['conflict', 'harvested_dataset', 'jobs_unavailable', 'search_sync_failed'],
    tag: 'packages',
    access: 'user',
    status: 201,
    summary: 'Add a resource (org editor); a duplicate URL in the dataset is 409',
    params: idParams,
    body: ResourceBody,
    response: ResourceRecord,
    handle: ({ domain, actor, params, body }) => addResource(domain, actor, params.id, body),
  }),
  defineRoute({
    method: 'put',
    path: '/packages/{id}/resources/reorder',
    problems: ['harvested_dataset', 'jobs_unavailable', 'search_sync_failed'],
    tag: 'packages',
    access: 'user',
    summary: 'Reorder resources: `order` lists every resource id once',
    params: idParams,
    body: z.strictObject({ order: z.array(z.uuid()).max(1000) }),
    response: listOf(ResourceRecord),
    handle: ({ domain, actor, params, body }) => reorderResources(domain, actor, params.id, body.order),
  }),
];
