import { z } from 'zod';
import { MAX_SQL_CHARS } from '../../../domain/resources/query.ts';

export const UploadUrlRecord = z
  .object({
    url: z.string(),
    method: z.literal('PUT'),
    headers: z.record(z.string(), z.string()).describe('Send these headers with the PUT, exactly'),
    expiresAt: z.iso.datetime(),
  })
  .meta({ id: 'UploadUrl' });

const StepStatus = z.enum(['pending', 'running', 'succeeded', 'failed', 'skipped']);

export const PipelineStatusRecord = z
  .object({
    resourceId: z.uuid(),
    status: z.enum(['none', 'queued', 'running', 'succeeded', 'failed']),
    steps: z.array(
      z.object({
        name: z.enum(['fetch', 'inspect', 'preview', 'text', 'index']),
        status: StepStatus,
        startedAt: z.iso.datetime().nullable(),
        finishedAt: z.iso.datetime().nullable(),
        error: z.string().nullable(),
      }),
    ),
    workflowId: z.string().nullable(),
    startedAt: z.iso.datetime().nullable(),
    finishedAt: z.iso.datetime().nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: 'PipelineStatus' });

const Column = z.object({
  name: z.string(),
  type: z.enum(['integer', 'float', 'boolean', 'string']),
  nullable: z.boolean(),
  nullCount: z.number().int(),
  stats: z
    .object({ min: z.union([z.string(), z.number(), z.null()]), max: z.union([z.string(), z.number(), z.null()]) })
    .optional()
    .describe('Numeric columns only; integer min and max are decimal strings'),
});

export const SchemaRecord = z
  .object({
    id: z.uuid(),
    queryable: z.boolean(),
    schema: z.object({ rowCount: z.number().int(), columns: z.array(Column), previewTruncated: z.boolean() }).nullable(),
  })
  .meta({ id: 'ResourceSchema' });

export const QueryResultRecord = z
  .object({
    id: z.uuid(),
    columns: z.array(z.string()),
    rows: z
      .array(z.record(z.string(), z.unknown()))
      .describe('Big integers and decimals as strings, dates ISO 8601, NaN and ±Infinity as text'),
    rowCount: z.number().int(),
    truncated: z.boolean(),
    elapsedMs: z.number().int(),
  })
  .meta({ id: 'QueryResult' });

/** A version's columns against another's (src/domain/pipeline/schema-diff.ts). */
const SchemaChanges = z.object({
  breaking: z.boolean(),
  changes: z.array(
    z.object({
      kind: z.enum(['added', 'removed', 'renamed', 'moved', 'retyped', 'nullsAppeared']),
      column: z.string(),
      position: z.number().int(),
      impact: z.enum(['breaking', 'compatible']),
      type: z.enum(['integer', 'float', 'boolean', 'string']).optional(),
      previousType: z.enum(['integer', 'float', 'boolean', 'string']).optional(),
      previousName: z.string().optional(),
      previousPosition: z.number().int().optional(),
      nullCount: z.number().int().optional(),
    }),
  ),
});

export const VersionRecord = z
  .object({
    resourceId: z.uuid(),
    version: z.number().int().describe('1, 2, 3… per resource; numbers retention let go are not reused'),
    current: z.boolean().describe('Whether this is the version the resource serves now (the table `data` of a query)'),
    sourceUrl: z.string().nullable().describe('The link the bytes were fetched from; null for an upload'),
    sha256: z.string().nullable(),
    size: z.number().int().nullable(),
    rowCount: z.number().int().nullable(),
    columns: z.number().int(),
    previewTruncated: z.boolean(),
    activityId: z.uuid().nullable(),
    schemaChanges: SchemaChanges.nullable().describe(
      'Its columns against the version served before it: added, removed, renamed, moved, retyped, nulls appearing, each breaking or compatible',
    ),
    review: z
      .enum(['pending', 'accepted', 'declined', 'superseded'])
      .nullable()
      .describe(
        'The schema-change hold: pending while a breaking version of a published resource waits for its editor (the previous one stays served), then accepted, declined, or superseded by newer bytes; null for a version never held',
      ),
    reviewedBy: z.uuid().nullable().describe('The user who accepted or declined it'),
    reviewedAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'ResourceVersion' });

export const VersionComparison = z
  .object({ resourceId: z.uuid(), from: z.number().int(), version: z.number().int() })
  .extend(SchemaChanges.shape)
  .meta({ id: 'ResourceVersionComparison' });

/** A query's body, for the current preview and for a version's. */
export const QueryBody = z.strictObject({
  sql: z
    .string()
    .min(1)
    // Longer SQL is refused by the query's own rule (400 query_too_long), not as an invalid field.
    .meta({ override: (ctx) => void (ctx.jsonSchema.maxLength = MAX_SQL_CHARS) }),
});
