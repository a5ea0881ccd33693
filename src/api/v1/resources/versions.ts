import { z } from 'zod';
import { queryCaller, queryResource } from '../../../domain/resources/query.ts';
import {
  compareVersions,
  listVersions,
  openVersionDownload,
  openVersionPreview,
  versionSchema,
} from '../../../domain/resources/versions.ts';
import { acceptVersion, declineVersion } from '../../../domain/resources/version-review.ts';
import { defineRoute } from '../../../http/route.ts';
import { listOf, paging } from '../../../http/schemas.ts';
import { sendObject } from '../../../http/send-object.ts';
import { QueryBody, QueryResultRecord, SchemaRecord, VersionComparison, VersionRecord } from './schema.ts';

const idParams = z.object({ id: z.string().min(1).max(200) });
const versionNumber = z.string().regex(/^[1-9]\d{0,8}$/, 'must be a version number');
const versionParams = z.object({ id: z.string().min(1).max(200), n: versionNumber });

/** Data versions of a resource (issue 30 §2): each one's bytes, schema and preview, under the resource's own visibility and limits. */
export const resourceVersionRoutes = [
  defineRoute({
    method: 'get',
    path: '/resources/{id}/versions',
    tag: 'files',
    access: 'public',
    summary: 'Data versions of the resource that retention keeps, newest first',
    params: idParams,
    query: z.object(paging),
    response: listOf(VersionRecord),
    handle: ({ domain, actor, params, query }) => listVersions(domain, actor, params.id, query),
  }),
  defineRoute({
    method: 'get',
    path: '/resources/{id}/versions/{n}/schema',
    tag: 'files',
    access: 'public',
    summary: 'Column schema of one data version',
    params: versionParams,
    response: SchemaRecord.extend({ version: z.number().int() }).meta({ id: 'ResourceVersionSchema' }),
    handle: ({ domain, actor, params }) => versionSchema(domain, actor, params.id, Number(params.n)),
  }),
  defineRoute({
    method: 'get',
    path: '/resources/{id}/versions/{n}/schema-changes',
    tag: 'files',
    access: 'public',
    summary: 'What a script written against version `from` meets in this version: its columns added, removed, renamed, retyped…',
    params: versionParams,
    query: z.object({ from: versionNumber }),
    response: VersionComparison,
    handle: ({ domain, actor, params, query }) => compareVersions(domain, actor, params.id, Number(params.n), Number(query.from)),
  }),
  defineRoute({
    method: 'get',
    path: '/resources/{id}/versions/{n}/download',
    problems: ['range_not_satisfiable'],
    tag: 'files',
    access: 'public',
    summary: "The bytes one data version was made from: an upload's file, or the copy the pipeline fetched of a link (Range supported)",
    params: versionParams,
    streamedResponse: { mediaType: '*/*', statuses: { 200: 'The file', 206: 'A byte range of it' } },
    handle: async ({ domain, actor, params, ctx }) =>
      sendObject(ctx, domain.storage, await openVersionDownload(domain, actor, params.id, Number(params.n)), 'attachment'),
  }),
  defineRoute({
    method: 'get',
    path: '/resources/{id}/versions/{n}/preview',
    problems: ['range_not_satisfiable'],
    tag: 'files',
    access: 'public',
    summary: 'The first PREVIEW_MAX_BYTES of one data version, with Range requests (206, 416)',
    params: versionParams,
    streamedResponse: { mediaType: '*/*', statuses: { 200: 'The preview bytes', 206: 'A byte range of them' } },
    handle: async ({ domain, actor, params, ctx }) =>
      sendObject(ctx, domain.storage, await openVersionPreview(domain, actor, params.id, Number(params.n)), 'inline'),
  }),
  defineRoute({
    method: 'post',
    path: '/resources/{id}/versions/{n}/query',
    problems: ['query_too_long', 'query_invalid', 'query_not_select', 'query_too_large', 'query_timeout', 'query_busy'],
    tag: 'files',
    access: 'public',
    summary:
      'One read-only SELECT over one data version, as the table `data` (other versions as `version_<n>`), under the limits of POST /resources/{id}/query',
    params: versionParams,
    body: QueryBody,
    response: QueryResultRecord,
    handle: ({ domain, actor, params, body, ctx }) =>
      queryResource(domain, actor, params.id, body.sql, queryCaller(actor, ctx.ip), Number(params.n)),
  }),
  defineRoute({
    method: 'post',
    path: '/resources/{id}/versions/{n}/accept',
    problems: ['conflict', 'jobs_unavailable'],
    tag: 'files',
    access: 'user',
    summary: 'Serve a version held for a breaking schema change (org editor): its file, preview and schema from now on',
    params: versionParams,
    response: VersionRecord,
    handle: ({ domain, actor, params }) => acceptVersion(domain, actor, params.id, Number(params.n)),
  }),
  defineRoute({
    method: 'post',
    path: '/resources/{id}/versions/{n}/decline',
    problems: ['conflict'],
    tag: 'files',
    access: 'user',
    summary:
      'Keep serving the current version instead of one held for a breaking schema change (org editor); the held one is kept, under retention',
    params: versionParams,
    response: VersionRecord,
    handle: ({ domain, actor, params }) => declineVersion(domain, actor, params.id, Number(params.n)),
  }),
];
