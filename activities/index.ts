import type { MikroORM } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/activity';
import {
  deleteOrganizationMemberships,
  deleteOrganizationRecord,
  PurgeAbandoned,
} from '../src/domain/groups/purge.ts';

export interface ActivityServices {
  orm: MikroORM;
}

/**
 * Builds the activities from the app's services; the worker calls this once. Each activity forks its
 * own EntityManager and calls into src/domain, so retries never share state.
 */
export function createActivities({ orm }: ActivityServices) {
  const nonRetryable = async <T>(work: () => Promise<T>) => {
    try {
      return await work();
    } catch (err) {
      if (err instanceof PurgeAbandoned) throw ApplicationFailure.nonRetryable(err.message, 'PurgeAbandoned');
      throw err;
    }
  };
  return {
    async purgeOrganizationMemberships(orgId: string): Promise<number> {
      return nonRetryable(() => deleteOrganizationMemberships(orm.em.fork(), orgId));
    },
    async purgeOrganizationRecord(orgId: string): Promise<boolean> {
      return nonRetryable(() => deleteOrganizationRecord(orm.em.fork(), orgId));
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
