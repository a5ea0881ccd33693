import type { DomainContext } from './context.ts';

/**
 * What a write does outside the database (a job started, files removed), when the write may be one step
 * of a larger change: inside `inOneTransaction` it waits for the whole change to commit, and is dropped
 * if it rolls back; anywhere else it happens at once, after the write's own transaction.
 */
export async function afterCommit(ctx: DomainContext, effect: () => Promise<unknown>): Promise<void> {
  if (ctx.afterCommit) ctx.afterCommit.push(effect);
  else await effect();
}

/**
 * Runs several domain writes as one change: their transactions become savepoints of one, so a step that
 * fails takes every earlier one back, and their effects outside the database run once it has committed.
 */
export async function inOneTransaction<T>(ctx: DomainContext, change: (tx: DomainContext) => Promise<T>): Promise<T> {
  const effects: Array<() => Promise<unknown>> = [];
  const result = await ctx.em.transactional((em) => change({ ...ctx, em, afterCommit: effects }));
  for (const effect of effects) await effect();
  return result;
}
