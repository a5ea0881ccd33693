import { resourcePrefix } from '../../storage/keys.ts';
import type { TableSchema } from '../../tabular/column-schema.ts';

/** `resources.extras.preview`: the preview being served, written by the run that made it. */
export interface PreviewRecord {
  /** The object holding it (src/storage/keys.ts `previewKey`); absent on previews made before runs had their own. */
  key?: string;
  schema?: TableSchema;
  encoding?: string;
  dialect?: { header?: boolean };
  sourceBytes?: number;
  createdAt?: string;
}

/** Where the served preview is; previews made before each run had its own key sit at the old fixed key. */
export const servedPreviewKey = (resourceId: string, preview: PreviewRecord) =>
  preview.key ?? `${resourcePrefix(resourceId)}preview.parquet`;
