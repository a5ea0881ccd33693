import { z } from 'zod';
import { countResources, deleteResource, getResource, replaceResource, resourceFormats } from '../../../domain/resources/resources.ts';
import { openDownload, openPreview, openText, pipelineStatus, resourceSchema, runPipeline } from '../../../domain/resources/files.ts';
import { completeUpload, issueUploadUrl, uploadThroughApi } from '../../../domain/resources/uploads.ts';
import { queryCaller, queryResource } from '../../../domain/resources/query.ts';
import { exportResource } from '../../../domain/resources/export.ts';
import { defineRoute } from '../../../http/route.ts';
import { sendObject, sendText } from '../../../http/send-object.ts';
import { filenameFromHeaders, uploadBody } from './upload-body.ts';
import { EXPORT_DOCUMENTED_TYPES, EXPORT_HEADERS, ExportFormatQuery, sendExport } from './export-response.ts';
import { PipelineStatusRecord, QueryBody, QueryResultRecord, SchemaRecord, UploadUrlRecord } from './schema.ts';
import { listOf } from '../../../http/schemas.ts';
import { ResourceBody, ResourceRecord } from '../packages/schema.ts';

const idParams = z.object({ id: z.string().min(1).max(200) });

export const resourceRoutes = [
  defineRoute({
    method: 'get',
    path: '/resources/count',
    tag: 'resources',
    access: 'public',
    summary: 'Number of resources of active datasets the caller may see',
    response: z.object({ count: z.number().int() }),
    handle: ({ domain, actor }) => countResources(domain, actor),
  }),
  defineRoute({
    method: 'get',
    path: '/resources/formats',
    tag: 'resources',
    access: 'public',
    summary: 'Formats in use on resources of active datasets the caller may see, most used first',
    response: listOf(z.object({ format: z.string(), count: z.number().int() })),
    handle: ({ domain, actor }) => resourceFormats(domain, actor),
  }),
  defineRoute({
    method: 'get',
    path: '/resources/{id}',
    tag: 'resources',
    access: 'public',
    summary: 'Resource detail',
    params: idParams,
    response: ResourceRecord,
    handle: ({ domain, actor, params }) => getResource(domain, actor, params.id),
  }),
  defineRoute({
    method: 'put',
    path: '/resources/{id}',
    problems: ['conflict', 'harvested_dataset', 'jobs_unavailable', 'search_sync_failed'],
    tag: 'resources',
    access: 'user',
    summary: 'Replace a resource (org editor); extras is system-managed (422)',
    params: idParams,
    body: ResourceBody,
    response: ResourceRecord,
    handle: ({ domain, actor, params, body }) => replaceResource(domain, actor, params.id, body),
  }),
  defineRoute({
    method: 'delete',
    path: '/resources/{id}',
    problems: ['harvested_dataset', 'jobs_unavailable', 'search_sync_failed'],
    tag: 'resources',
    access: 'user',
    summary: 'Delete a resource (org editor)',
    params: idParams,
    handle: ({ domain, actor, params }) => deleteResource(domain, actor, params.id),
  }),
  defineRoute({
    method: 'post',
    path: '/resources/{id}/upload-url',
    problems: ['conflict', 'upload_too_large'],
    tag: 'files',
    access: 'user',
    summary: 'A presigned PUT URL for the bytes of an upload resource (org editor); then call upload-complete',
    params: idParams,
    body: z.strictObject({
      filename: z
        .string()
        .trim()
        .min(1)
        .max(500)
        // eslint-disable-next-line no-control-regex -- the characters a file name must not carry
        .regex(/^[^\x00-\x1f\x7f]*$/, 'must not contain control characters'),
      contentType: z
        .string()
        .trim()
        .min(1)
        .max(200)
        // Parameters after spaces or tabs only: a line break would end up in the upload's headers.
        .regex(/^[\w.+-]+\/[\w.+-]+([ \t]*;[\x20-\x7e]*)?$/, 'expected a media type such as text/csv')
        // The stores sign a Content-Type without control characters: a tab before the parameters (which
        // HTTP allows, and the pattern) is the same type with a space.
        .overwrite((type) => type.replace(/\t/g, ' ')),
      size: z.number().int().nonnegative(),
    }),
    response: UploadUrlRecord,
    handle: ({ domain, actor, params, body }) => issueUploadUrl(domain, actor, params.id, body),
  }),
  defineRoute({
    method: 'post',
    path: '/resources/{id}/upload',
    links: {
      'GET /resources/{id}/pipeline-status': { id: '$response.body#/id' },
      'GET /resources/{id}/schema': { id: '$response.body#/id' },
      'GET /resources/{id}/preview': { id: '$response.body#/id' },
      'GET /resources/{id}/text': { id: '$response.body#/id' },
      'POST /resources/{id}/query': { id: '$response.body#/id' },
    },
    problems: [
      'invalid_multipart',
      'upload_missing_file',
      'upload_size_mismatch',
      'malformed_body',
      'conflict',
      'upload_session_closed',
      'upload_too_large',
      'validation_failed',
      'jobs_unavailable',
    ],
    tag: 'files',
    access: 'user',
    summary:
      'Upload the bytes through the API (org editor): the raw body, or one file in multipart/form-data; streamed, limit UPLOAD_MAX_BYTES (413)',
    params: idParams,
    streamedBody: 'application/octet-stream',
    response: ResourceRecord,
    handle: async ({ domain, actor, params, ctx }) => {
      const upload = await uploadBody(ctx);
      return uploadThroughApi(domain, actor, params.id, upload.stream, {
        contentType: upload.contentType,
        contentLength: upload.contentLength,
        filename: upload.filename ?? filenameFromHeaders(ctx),
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/resources/{id}/upload-complete',
    problems: ['conflict', 'upload_size_mismatch', 'upload_session_closed', 'jobs_unavailable', 'search_sync_failed'],
    tag: 'files',
    access: 'user',
    summary: 'After a presigned upload: checks the bytes, records size, sha256 and type, starts the pipeline (safe to repeat)',
    params: idParams,
    response: ResourceRecord,
    handle: ({ domain, actor, params }) => completeUpload(domain, actor, params.id),
  }),
  defineRoute({
    method: 'post',
    path: '/resources/{id}/run-pipeline',
    problems: ['conflict', 'jobs_unavailable'],
    tag: 'files',
    access: 'user',
    summary: 'Run the resource pipeline again (org editor)',
    params: idParams,
    status: 202,
    response: PipelineStatusRecord,
    handle: ({ domain, actor, params }) => runPipeline(domain, actor, params.id),
  }),
  defineRoute({
    method: 'get',
    path: '/resources/{id}/pipeline-status',
    tag: 'files',
    access: 'public',
    summary: 'The resource pipeline: status and each step',
    params: idParams,
    response: PipelineStatusRecord,
    handle: ({ domain, actor, params }) => pipelineStatus(domain, actor, params.id),
  }),
  defineRoute({
    method: 'get',
    path: '/resources/{id}/schema',
    tag: 'files',
    access: 'public',
    summary: 'Column schema of a CSV/TSV preview; queryable false and schema null until there is one',
    params: idParams,
    response: SchemaRecord,
    handle: ({ domain, actor, params }) => resourceSchema(domain, actor, params.id),
  }),
  defineRoute({
    method: 'get',
    path: '/resources/{id}/download',
    problems: ['range_not_satisfiable', 'not_queryable', 'query_busy', 'query_timeout', 'query_too_large'],
    tag: 'files',
    access: 'public',
    summary:
      'Download: 302 to the URL of a link; the bytes of an upload (Range supported). With format: the whole preview of a queryable resource in that format, streamed (no row limit; one export or query at a time per caller)',
    params: idParams,
    query: ExportFormatQuery,
    streamedResponse: {
      // The file's own media type, whatever it is; or the export's.
      mediaType: '*/*',
      statuses: { 200: 'The file, or its export', 206: 'A byte range of the file', 302: 'Redirect to a link' },
      headers: EXPORT_HEADERS,
    },
    handle: async ({ domain, actor, params, query, ctx }) => {
      if (query.format) {
        return sendExport(
          ctx,
          await exportResource(domain, actor, params.id, { format: query.format, sql: null }, queryCaller(actor, ctx.ip)),
        );
      }
      const target = await openDownload(domain, actor, params.id);
      if ('redirect' in target) return ctx.redirect(target.redirect);
      return sendObject(ctx, domain.storage, target, 'attachment');
    },
  }),
  defineRoute({
    method: 'get',
    path: '/resources/{id}/preview',
    problems: ['no_preview', 'range_not_satisfiable'],
    tag: 'files',
    access: 'public',
    summary: 'The first PREVIEW_MAX_BYTES of the file through the API, with Range requests (206, 416)',
    params: idParams,
    streamedResponse: {
      mediaType: '*/*',
      statuses: { 200: 'The preview bytes', 206: 'A byte range of them' },
    },
    handle: async ({ domain, actor, params, ctx }) =>
      sendObject(ctx, domain.storage, await openPreview(domain, actor, params.id), 'inline'),
  }),
  defineRoute({
    method: 'get',
    path: '/resources/{id}/text',
    problems: ['no_preview', 'not_text'],
    tag: 'files',
    access: 'public',
    summary: 'The first PREVIEW_MAX_BYTES as UTF-8 text, decoded from the detected encoding',
    params: idParams,
    streamedResponse: { mediaType: 'text/plain', statuses: { 200: 'The text' } },
    handle: async ({ domain, actor, params, ctx }) => {
      const text = await openText(domain, actor, params.id);
      return sendText(ctx, domain.storage, text, text.encoding);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/resources/{id}/query',
    problems: ['not_queryable', 'query_too_long', 'query_invalid', 'query_not_select', 'query_too_large', 'query_timeout', 'query_busy'],
    tag: 'files',
    access: 'public',
    summary:
      'One read-only SELECT over the preview, as the table `data` (10,000 rows, 5 MB, 15 s; one query at a time per caller); with format, the result streamed in that format under the same limits (X-Almanac-Truncated says whether rows were left out)',
    params: idParams,
    query: ExportFormatQuery,
    streamedResponse: { mediaType: EXPORT_DOCUMENTED_TYPES, statuses: { 200: 'The result' }, headers: EXPORT_HEADERS },
    body: QueryBody,
    response: QueryResultRecord,
    handle: async ({ domain, actor, params, query, body, ctx }) => {
      const caller = queryCaller(actor, ctx.ip);
      if (!query.format) return queryResource(domain, actor, params.id, body.sql, caller);
      sendExport(ctx, await exportResource(domain, actor, params.id, { format: query.format, sql: body.sql }, caller));
      // Answered as a stream (streamedResponse): no value for the JSON path.
      return undefined as never;
    },
  }),
];
