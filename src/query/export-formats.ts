/**
 * The formats a query result or a whole queryable resource can be exported in: the API's `?format=`, the
 * SQL console's download links and the query process (export-run.ts) all name them from here.
 */
export const EXPORT_FORMATS = ['csv', 'json', 'parquet', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_MEDIA_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  // JSON Lines, one object a line: the media type most clients and tools recognize for it.
  json: 'application/x-ndjson',
  // Registered with IANA in 2024.
  parquet: 'application/vnd.apache.parquet',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

export const EXPORT_EXTENSIONS: Record<ExportFormat, string> = { csv: 'csv', json: 'jsonl', parquet: 'parquet', xlsx: 'xlsx' };

/** `Annual report 2024.csv` → `Annual_report_2024-query.parquet`: a name safe in any header and file system. */
export function exportFilename(resourceName: string | null | undefined, format: ExportFormat, suffix = ''): string {
  const stem =
    (resourceName ?? '')
      .replace(/\.[A-Za-z0-9]{1,8}$/, '')
      .replace(/[^\w.-]+/g, '_')
      .replace(/^[._]+|_+$/g, '')
      .slice(0, 100) || 'data';
  return `${stem}${suffix}.${EXPORT_EXTENSIONS[format]}`;
}
