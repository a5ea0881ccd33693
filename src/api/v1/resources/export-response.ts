import type { Context } from 'koa';
import { z } from 'zod';
import type { ResourceExport } from '../../../domain/resources/export.ts';
import { EXPORT_FORMATS, EXPORT_MEDIA_TYPES } from '../../../query/export-formats.ts';
import { contentDisposition } from '../../../http/send-object.ts';

export const ExportFormatQuery = z.object({
  format: z
    .enum(EXPORT_FORMATS)
    .optional()
    .describe('Stream the rows in this format (json: JSON Lines) instead of the usual answer; a file to save, not JSON'),
});

/** The export media types without their parameters, as OpenAPI keys them. */
export const EXPORT_DOCUMENTED_TYPES = Object.values(EXPORT_MEDIA_TYPES).map((type) => type.split(';')[0]!);

export const EXPORT_HEADERS = {
  'X-Almanac-Row-Count': 'The number of rows in the export (when known ahead)',
  'X-Almanac-Truncated':
    '`true` when rows were left out: by the query limits for a query, or because the preview covers only the start of the file for a whole resource',
};

/**
 * Streams an export as an attachment, written to the answer by the export itself (it reuses its buffers
 * once written out, which a stream handed to Koa could not tell it). Not compressed: Parquet and XLSX
 * are already, and a whole CSV compressed in the API process would cost the API's CPU for every byte.
 */
export function sendExport(ctx: Context, exported: ResourceExport) {
  ctx.status = 200;
  ctx.set('Content-Type', exported.mediaType);
  ctx.set('Content-Disposition', contentDisposition('attachment', exported.filename));
  ctx.set('Cache-Control', 'private, no-store');
  if (exported.rowCount !== null) ctx.set('X-Almanac-Row-Count', String(exported.rowCount));
  ctx.set('X-Almanac-Truncated', String(exported.truncated));
  ctx.compress = false;
  ctx.respond = false;
  if (ctx.method === 'HEAD') ctx.res.end();
  exported.sendTo(ctx.res);
}
