import { ActivityFailure, ApplicationFailure, continueAsNew, defineSignal, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { VECTOR_BACKLOG_ACTIVITY, VECTOR_INDEX_RETRY, VECTOR_INDEX_UNREACHABLE } from './activity-options.ts';

const { embedVectorBacklogPage } = proxyActivities<Activities>(VECTOR_BACKLOG_ACTIVITY);

type BacklogCursor = Awaited<ReturnType<Activities['embedVectorBacklogPage']>>['next'];

/** Sent (with a start when none runs) by whoever wrote points without their vectors. */
export const vectorsPendingSignal = defineSignal('vectorsPending');

export interface VectorBacklogInput {
  pagesPerRun?: number;
  /** Carried across continue-as-new. */
  after?: BacklogCursor;
  embedded?: number;
  again?: boolean;
}

/**
 * `vector-backlog-<task queue>`: embeds the points written without a vector (a harvest's), a page per
 * activity, until a pass finds none left. New points announced meanwhile (the signal) get one more pass
 * from the start, as they may sit behind the cursor; one job per deployment, however many harvests
 * announce work.
 */
export async function vectorBacklogWorkflow({ pagesPerRun = 100, after = null, embedded = 0, again = false }: VectorBacklogInput = {}) {
  setHandler(vectorsPendingSignal, () => void (again = true));
  for (let page = 0; page < pagesPerRun; page++) {
    // A pass sees every point written before it begins: only a signal that comes during it asks for another.
    if (after === null) again = false;
    let done: Awaited<ReturnType<typeof embedVectorBacklogPage>>;
    try {
      done = await embedVectorBacklogPage(after);
    } catch (err) {
      if (!indexUnreachable(err)) throw err;
      // The index is down: wait, then a pass from the start, whose first step pushes what it missed.
      await sleep(VECTOR_INDEX_RETRY);
      after = null;
      again = true;
      continue;
    }
    embedded += done.embedded;
    after = done.next;
    if (after === null && !again) return { embedded };
  }
  return continueAsNew<typeof vectorBacklogWorkflow>({ pagesPerRun, after, embedded, again });
}

const indexUnreachable = (err: unknown) =>
  err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === VECTOR_INDEX_UNREACHABLE;
