import { Context } from '@temporalio/activity';

const HEARTBEAT_EVERY_MS = 5_000;

/**
 * `work`, heartbeating every 5 s while this process lives, also through one long call (a DuckDB
 * statement, a source's download, a large delete): a killed worker stops the beats, and Temporal gives
 * the step to another worker once the activity's heartbeat timeout passes, not its start-to-close timeout.
 */
export async function beating<T>(work: () => Promise<T>): Promise<T> {
  const activity = Context.current();
  const beat = setInterval(() => activity.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(beat);
  }
}
