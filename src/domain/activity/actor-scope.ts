import { AsyncLocalStorage } from 'node:async_hooks';
import type { EventSubscriber, TransactionEventArgs } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Who the activities of a unit of work name: the signed-in user of a request, or the harvest run that
 * applies records. The database's triggers record activities (migration 20261127100000_Activities) and
 * read them from the transaction's settings, which ActorSettings writes as each transaction begins, so no
 * write path has to pass them along. Outside any scope (the CLI, workflows) a change is the system's.
 */
export interface ActivityActor {
  userId?: string | null;
  harvestRunId?: string;
}

const scope = new AsyncLocalStorage<ActivityActor>();

export function withActivityActor<T>(actor: ActivityActor, work: () => T): T {
  return scope.run(actor, work);
}

/** Writes the scope's actor into each top-level transaction's local settings (`set_config(…, true)`). */
export class ActorSettings implements EventSubscriber {
  async afterTransactionStart({ em, transaction }: TransactionEventArgs) {
    const actor = scope.getStore();
    if (!actor?.userId && !actor?.harvestRunId) return;
    await (em as EntityManager)
      .getConnection()
      .execute(
        "select set_config('almanac.actor', ?, true), set_config('almanac.harvest_run', ?, true)",
        [actor.userId ?? '', actor.harvestRunId ?? ''],
        'run',
        transaction,
      );
  }
}
