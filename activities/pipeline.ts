import { ApplicationFailure, Context } from '@temporalio/activity';
import { markFinished } from '../src/domain/pipeline/record.ts';
import {
  fetchStep,
  indexStep,
  inspectStep,
  isTextFormat,
  PipelineError,
  previewStep,
  startRun,
  textStep,
  type StepDeps,
} from '../src/domain/pipeline/steps.ts';
import { beating } from './heartbeat.ts';
import type { ActivityServices } from './services.ts';
import { TabularError } from '../src/tabular/index.ts';

/**
 * The resource pipeline's activities. Errors that retrying cannot fix (what the bytes are) fail at
 * once with their message; anything else (storage, database, a killed worker) is retried.
 */
export function pipelineActivities({ orm, storage, config, search }: ActivityServices) {
  const deps = (): StepDeps => ({
    em: orm.em.fork(),
    storage,
    config,
    search,
    heartbeat: () => Context.current().heartbeat(),
  });
  const final = <T>(work: () => Promise<T>): Promise<T> =>
    beating(work).catch((err: unknown) => {
      if (err instanceof TabularError || err instanceof PipelineError) throw ApplicationFailure.nonRetryable(err.message, err.name);
      throw err;
    });
  return {
    async pipelineStart(resourceId: string, workflowId: string, runId: string) {
      return startRun(deps(), resourceId, workflowId, runId);
    },
    async pipelineFetch(resourceId: string, runId: string) {
      await final(() => fetchStep(deps(), resourceId, runId));
    },
    async pipelineInspect(resourceId: string, runId: string) {
      const detected = await final(() => inspectStep(deps(), resourceId, runId));
      return { tabular: detected.tabular, text: isTextFormat(detected) };
    },
    async pipelinePreview(resourceId: string, runId: string, tabular: 'csv' | 'tsv') {
      await final(() => previewStep(deps(), resourceId, runId, tabular));
    },
    async pipelineText(resourceId: string, runId: string, tabular: 'csv' | 'tsv' | null) {
      await final(() => textStep(deps(), resourceId, runId, tabular));
    },
    async pipelineIndex(resourceId: string, runId: string) {
      await final(() => indexStep(deps(), resourceId, runId));
    },
    async pipelineFinish(resourceId: string, runId: string, error: string | null) {
      return markFinished(orm.em.fork(), resourceId, runId, error);
    },
  };
}
