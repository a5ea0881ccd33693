import type { EventSubscriber, TransactionEventArgs } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Who the activities of a unit of work name: the signed-in user of a request, or the harvest run that
 * applies records. The database's triggers record activities (migration 20261127100000_Activities) and
 * read them from the transaction's settings, which ActorSettings writes as each transaction begins, so no
 * write path has to pass them along. The actor rides on the EntityManager's logger context, which every
 * fork of it inherits (a transaction's, a batch's), not on an AsyncLocalStorage, whose promise hooks
 * every request would pay for. An EntityManager without one (the CLI, workflows) writes as the system.
 */
export interface ActivityActor {
  userId?: string | null;
  harvestRunId?: string;
}

const KEY = 'activityActor';

/** From now on, `em` and the forks made of it write as `actor`. */
export function actAs(em: EntityManager, actor: ActivityActor) {
  em.setLoggerContext({ ...em.getLoggerContext(), [KEY]: actor });
}

/** Writes the actor into each top-level transaction's local settings (`set_config(…, true)`). */
export class ActorSettings implements EventSubscriber {
  async afterTransactionStart({ em, transaction }: TransactionEventArgs) {
    const actor = (em as EntityManager).getLoggerContext()[KEY] as ActivityActor | undefined;
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
