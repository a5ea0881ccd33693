import { z } from 'zod';
import { countResources, deleteResource, getResource, replaceResource, resourceFormats } from '../../../domain/resources/resources.ts';
import { defineRoute } from '../../../http/route.ts';
import { listOf } from '../../../http/schemas.ts';
import { ResourceBody, ResourceRecord } from '../packages/schema.ts';

const idParams = z.object({ id: z.string().min(1).max(200) });

export const resourceRoutes = [
  defineRoute({
    method: 'get', path: '/resources/count', tag: 'resources', access: 'public',
    summary: 'Number of resources of active datasets the caller may see',
    response: z.object({ count: z.number().int() }),
    handle: ({ domain, actor }) => countResources(domain, actor),
  }),
  defineRoute({
    method: 'get', path: '/resources/formats', tag: 'resources', access: 'public',
    summary: 'Formats in use on resources of active datasets the caller may see, most used first',
    response: listOf(z.object({ format: z.string(), count: z.number().int() })),
    handle: ({ domain, actor }) => resourceFormats(domain, actor),
  }),
  defineRoute({
    method: 'get', path: '/resources/{id}', tag: 'resources', access: 'public',
    summary: 'Resource detail',
    params: idParams,
    response: ResourceRecord,
    handle: ({ domain, actor, params }) => getResource(domain, actor, params.id),
  }),
  defineRoute({
    method: 'put', path: '/resources/{id}', tag: 'resources', access: 'user',
    summary: 'Replace a resource (org editor); extras is system-managed (422)',
    params: idParams,
    body: ResourceBody,
    response: ResourceRecord,
    handle: ({ domain, actor, params, body }) => replaceResource(domain, actor, params.id, body),
  }),
  defineRoute({
    method: 'delete', path: '/resources/{id}', tag: 'resources', access: 'user',
    summary: 'Delete a resource (org editor)',
    params: idParams,
    handle: ({ domain, actor, params }) => deleteResource(domain, actor, params.id),
  }),
];
