import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { StorageSweepCounts, StorageSweepOptions } from '../src/domain/jobs/port.ts';
import { STORE_WALK_ACTIVITY } from './activity-options.ts';

const { sweepStorage } = proxyActivities<Activities>(STORE_WALK_ACTIVITY);

/**
 * `sweep-storage` (and `sweep-storage-<time>` from the schedule): removes the stored objects no record
 * serves, such as uploads never completed and files written after their resource was deleted. One
 * activity walks the whole listing, heartbeating; a retry starts the listing again, which is harmless.
 */
export async function sweepStorageWorkflow({ olderThanSeconds = 3600 }: StorageSweepOptions = {}): Promise<StorageSweepCounts> {
  return sweepStorage(olderThanSeconds);
}
