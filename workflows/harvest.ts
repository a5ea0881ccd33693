import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  continueAsNew,
  isCancellation,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { HARVEST_BOOKKEEPING_ACTIVITY, HARVEST_PAGE_ACTIVITY, HARVEST_PAGES_PER_RUN } from './activity-options.ts';

/** The run's row as its pages need it, and where the reader is: the activities' own types. */
type BegunRun = NonNullable<Awaited<ReturnType<Activities['beginHarvestRun']>>>;
type HarvestCursor = NonNullable<Parameters<Activities['harvestPage']>[1]>;

const { beginHarvestRun, finishHarvestRun, failHarvestRun, otherHarvestRunning } =
  proxyActivities<Activities>(HARVEST_BOOKKEEPING_ACTIVITY);
const { harvestPage } = proxyActivities<Activities>(HARVEST_PAGE_ACTIVITY);

export interface HarvestWorkflowInput {
  sourceId: string;
  /** Read everything, also where the source could answer only what changed since the last run. */
  full?: boolean;
  /** Records per page asked of the source (the reader's default otherwise). */
  pageSize?: number;
  pagesPerRun?: number;
  /** Carried across continue-as-new: the run's row, where the reader is, the pages read. */
  run?: BegunRun;
  cursor?: HarvestCursor | null;
  pages?: number;
}

export interface HarvestResult {
  /** `skipped`: a scheduled run that found another run of its source going, and left it alone (no row). */
  status: 'succeeded' | 'source-gone' | 'skipped';
  pages: number;
  removed: number;
}

/**
 * `harvest-<sourceId>` (and `harvest-<sourceId>-<time>` from its schedule): reads the source a page per
 * activity and applies each record (created, updated, unchanged or failed with its reason), then marks
 * what a full run no longer found. Continues as new every few pages with its cursor. A source still
 * unreachable after the page's retries, or answering what no harvest can read, fails the run with the
 * reason on its row; the records already brought stay.
 */
export async function harvestWorkflow(input: HarvestWorkflowInput): Promise<HarvestResult> {
  const { sourceId, pageSize, pagesPerRun = HARVEST_PAGES_PER_RUN } = input;
  const info = workflowInfo();
  // A schedule's run (`harvest-<id>-<time>`) never goes beside a request's (`harvest-<id>`), which joins it instead.
  if (!input.run && info.workflowId.startsWith(`harvest-${sourceId}-`) && (await otherHarvestRunning(sourceId, info.workflowId))) {
    return { status: 'skipped', pages: 0, removed: 0 };
  }
  const run = input.run ?? (await beginHarvestRun(sourceId, info.workflowId, info.firstExecutionRunId, input.full ?? false));
  let pages = input.pages ?? 0;
  if (!run) return { status: 'source-gone', pages, removed: 0 };
  let cursor = input.cursor ?? null;
  try {
    for (let i = 0; i < pagesPerRun; i++) {
      const page = await harvestPage(run, cursor, pages + 1, pageSize ?? null);
      if (page.gone) return { status: 'source-gone', pages, removed: 0 };
      pages++;
      if (page.next === null) {
        const { removed } = await finishHarvestRun(run);
        return { status: 'succeeded', pages, removed };
      }
      cursor = page.next;
    }
  } catch (err) {
    const cancelled = isCancellation(err);
    const reason = cancelled ? 'The run was cancelled.' : failureReason(err);
    // Also when the run was cancelled: its row must say it ended, and its records get their vectors.
    await CancellationScope.nonCancellable(() => failHarvestRun(run.runRowId, reason));
    // A cancelled run ends cancelled in Temporal, not failed.
    if (cancelled) throw err;
    throw ApplicationFailure.create({ type: 'HarvestFailed', message: reason, nonRetryable: true, cause: err as Error });
  }
  return continueAsNew<typeof harvestWorkflow>({ ...input, run, cursor, pages });
}

/** What an operator reads on the run's row: why the source could not be harvested. */
function failureReason(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  const message = cause instanceof Error ? cause.message : String(cause);
  if (cause instanceof ApplicationFailure && cause.type === 'SourceUnavailable') {
    return `The source could not be reached (5 attempts with backoff): ${message}`;
  }
  if (cause instanceof ApplicationFailure && cause.type === 'SourceInvalid') {
    return `The source answered with something a harvest cannot read: ${message}`;
  }
  return `The harvest failed: ${message}`;
}
