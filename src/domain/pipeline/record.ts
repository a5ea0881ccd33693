import type { EntityManager } from '@mikro-orm/postgresql';
import { contentsKey } from '../../storage/keys.ts';
import { servedPreviewKey, type PreviewRecord } from './preview-record.ts';
import { keepServedAsVersion, unversionedKeys } from './version-record.ts';

/**
 * The pipeline's own account of a resource, kept in `resources.extras` (DESIGN §4): `pipeline` (status
 * and steps), `detected`, `preview`, `queryable`. Every write is a jsonb merge in one statement, so a
 * client's concurrent PUT of the resource (which never touches extras) loses nothing, and every write
 * names the run: a run replaced by a newer one can no longer change what the newer one reports.
 */

export const PIPELINE_STEPS = ['fetch', 'inspect', 'preview', 'text', 'index'] as const;
export type PipelineStepName = (typeof PIPELINE_STEPS)[number];
export type StepStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped';
export type PipelineStatus = 'none' | 'queued' | 'running' | 'succeeded' | 'failed';

export interface PipelineStep {
  name: PipelineStepName;
  status: StepStatus;
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
}

export interface PipelineRecord {
  status: PipelineStatus;
  workflowId: string;
  runId: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
  steps: PipelineStep[];
}

const now = () => new Date().toISOString();

const pendingSteps = (names: readonly PipelineStepName[]): PipelineStep[] =>
  names.map((name) => ({ name, status: 'pending', startedAt: null, finishedAt: null, error: null }));

/** What the upload or trigger request writes before the workflow starts: queued, results cleared. */
export function queuedRecord(workflowId: string): PipelineRecord {
  return { status: 'queued', workflowId, runId: null, startedAt: null, finishedAt: null, error: null, steps: [] };
}

/** Merges `patch` into extras; with `runId`, only while that run is the one on record. */
async function mergeExtras(em: EntityManager, resourceId: string, patch: Record<string, unknown>, runId?: string): Promise<boolean> {
  const guard = runId === undefined ? '' : ` and extras->'pipeline'->>'runId' = ?`;
  const rows = await em.execute<{ id: string }[]>(
    `update resources set extras = extras || ?::jsonb, updated_at = now() where id = ?${guard} returning id`,
    [JSON.stringify(patch), resourceId, ...(runId === undefined ? [] : [runId])],
  );
  return rows.length > 0;
}

/**
 * Before the workflow starts. What earlier runs made (preview, schema, text) stays served until the new run
 * replaces it: a re-run over the same bytes never leaves the resource unqueryable in between. New bytes
 * or a new link call `invalidateOutputs` first.
 */
export async function markQueued(em: EntityManager, resourceId: string, workflowId: string) {
  await mergeExtras(em, resourceId, { pipeline: queuedRecord(workflowId) });
}

/**
 * The resource's bytes changed (a new file, another link): what the pipeline made of the old ones no
 * longer describes it, so it stops being served at once. Returns the objects that held it and that no
 * version keeps (src/domain/pipeline/version-record.ts), for removal; `extra` are more such candidates.
 */
export async function invalidateOutputs(em: EntityManager, resourceId: string, extra: string[] = []): Promise<string[]> {
  return em.transactional(async (tx) => {
    await keepServedAsVersion(tx, resourceId);
    const [row] = await tx.execute<{ preview: PreviewRecord | null }[]>(
      `update resources r set extras = r.extras || ?::jsonb, updated_at = now() from resources old
       where r.id = ? and old.id = r.id returning old.extras->'preview' as preview`,
      [JSON.stringify({ queryable: false, preview: null, detected: null, contents: null }), resourceId],
    );
    const outputs = row?.preview ? [servedPreviewKey(resourceId, row.preview), contentsKey(resourceId)] : [contentsKey(resourceId)];
    return unversionedKeys(tx, resourceId, [...outputs, ...extra]);
  });
}

/** The run takes over the record; false when the resource is gone. */
export async function markStarted(
  em: EntityManager,
  resourceId: string,
  workflowId: string,
  runId: string,
  steps: readonly PipelineStepName[],
) {
  const record: PipelineRecord = {
    status: 'running',
    workflowId,
    runId,
    startedAt: now(),
    finishedAt: null,
    error: null,
    steps: pendingSteps(steps),
  };
  return mergeExtras(em, resourceId, { pipeline: record });
}

/**
 * Sets one step's status (and merges `results` into extras in the same statement; `also` writes in the
 * same transaction). Steps are few, so the
 * record is read, changed and written under a row lock rather than patched by path.
 */
export async function markStep(
  em: EntityManager,
  resourceId: string,
  runId: string,
  name: PipelineStepName,
  status: StepStatus,
  options: { error?: string; results?: Record<string, unknown>; also?: (tx: EntityManager) => Promise<void> } = {},
): Promise<boolean> {
  return em.transactional(async (tx) => {
    const pipeline = await lockedRun(tx, resourceId, runId);
    if (!pipeline) return false;
    // What must commit with the step's results or not at all (the version its preview makes).
    await options.also?.(tx);
    const steps = pipeline.steps.map((s) =>
      s.name !== name
        ? s
        : {
            ...s,
            status,
            startedAt: status === 'running' ? now() : (s.startedAt ?? now()),
            finishedAt: status === 'running' ? null : now(),
            error: options.error ?? null,
          },
    );
    return mergeExtras(tx, resourceId, { ...options.results, pipeline: { ...pipeline, steps } }, runId);
  });
}

/** The end of a run: succeeded, or failed with the first failing step's message. */
export async function markFinished(em: EntityManager, resourceId: string, runId: string, error: string | null) {
  return em.transactional(async (tx) => {
    const pipeline = await lockedRun(tx, resourceId, runId);
    if (!pipeline) return false;
    const steps = pipeline.steps.map((s): PipelineStep => {
      if (s.status === 'running') return { ...s, status: 'failed', finishedAt: now(), error: s.error ?? error };
      if (s.status === 'pending') return { ...s, status: error ? 'pending' : 'skipped' };
      return s;
    });
    const record: PipelineRecord = { ...pipeline, status: error ? 'failed' : 'succeeded', finishedAt: now(), error, steps };
    return mergeExtras(tx, resourceId, { pipeline: record }, runId);
  });
}

/** GET /resources/{id}/pipeline-status, from the resource's extras. */
export function presentPipelineStatus(resourceId: string, extras: Record<string, unknown>) {
  const pipeline = extras.pipeline as PipelineRecord | undefined | null;
  if (!pipeline) {
    return { resourceId, status: 'none' as const, steps: [], workflowId: null, startedAt: null, finishedAt: null, error: null };
  }
  return {
    resourceId,
    status: pipeline.status,
    steps: pipeline.steps,
    workflowId: pipeline.workflowId,
    startedAt: pipeline.startedAt,
    finishedAt: pipeline.finishedAt,
    error: pipeline.error,
  };
}

/** The resource's pipeline record, row-locked, when it is still this run's; null once another run replaced it. */
async function lockedRun(tx: EntityManager, resourceId: string, runId: string): Promise<PipelineRecord | null> {
  const [row] = await tx.execute<{ pipeline: PipelineRecord | null }[]>(
    `select extras->'pipeline' as pipeline from resources where id = ? for update`,
    [resourceId],
  );
  const pipeline = row?.pipeline;
  return pipeline && pipeline.runId === runId ? pipeline : null;
}
