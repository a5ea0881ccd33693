/**
 * Runs `work` over `items` with at most `limit` in flight, in order of the list. Plain promises, no
 * timers or randomness, so a workflow replays it the same way.
 */
export async function forEachWithLimit<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
}
