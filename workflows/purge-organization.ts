import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { SHORT_ACTIVITY } from '../src/temporal/policies.ts';

const { purgeOrganizationRecord } = proxyActivities<Activities>(SHORT_ACTIVITY);

/**
 * `purge-org-<id>`: removes a soft-deleted organization for good. The organization's own row goes last
 * (with its memberships), so a purge cut short leaves it listed as deleted and the next request
 * finishes the work. Restoring is refused while this runs.
 */
export async function purgeOrganizationWorkflow(orgId: string): Promise<{ removed: boolean }> {
  const removed = await purgeOrganizationRecord(orgId);
  return { removed };
}
