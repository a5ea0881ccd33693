import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { SHORT_ACTIVITY } from '../src/temporal/policies.ts';

const { purgeOrganizationMemberships, purgeOrganizationRecord } = proxyActivities<Activities>(SHORT_ACTIVITY);

/**
 * `purge-org-<id>`: removes a soft-deleted organization for good. Memberships go first and the row last,
 * so a purge cut short leaves the organization listed as deleted, and the next request finishes it.
 */
export async function purgeOrganizationWorkflow(orgId: string): Promise<{ memberships: number; removed: boolean }> {
  const memberships = await purgeOrganizationMemberships(orgId);
  const removed = await purgeOrganizationRecord(orgId);
  return { memberships, removed };
}
