import test from 'ava';
import { Batches } from '../../src/search/batches.ts';

/** A run that waits until the test lets it finish, recording each batch it was given. */
function gatedRun() {
  const batches: number[][] = [];
  const gates: Array<() => void> = [];
  const run = (items: number[]) => {
    batches.push(items);
    return new Promise<void>((resolve) => gates.push(resolve));
  };
  const openNext = async () => {
    while (gates.length === 0) await new Promise((r) => setImmediate(r));
    gates.shift()!();
  };
  return { batches, run, openNext };
}

test('an item alone runs at once; those that arrive while a batch runs go together into the next', async (t) => {
  const { batches, run, openNext } = gatedRun();
  const group = new Batches(run, 10);
  const first = group.add(1);
  const rest = [2, 3, 4].map((i) => group.add(i));
  t.deepEqual(batches, [[1]]);
  await openNext();
  await first;
  await openNext();
  await Promise.all(rest);
  t.deepEqual(batches, [[1], [2, 3, 4]]);
});

test('a batch holds at most maxBatch items; the others wait for the next', async (t) => {
  const { batches, run, openNext } = gatedRun();
  const group = new Batches(run, 2);
  const all = [1, 2, 3, 4, 5].map((i) => group.add(i));
  for (let i = 0; i < 3; i++) await openNext();
  await Promise.all(all);
  t.deepEqual(batches, [[1], [2, 3], [4, 5]]);
});

test('a failed batch fails each of its items with its error, and the next batch still runs', async (t) => {
  let calls = 0;
  const group = new Batches(async (items: number[]) => {
    calls++;
    if (items.includes(2)) throw new Error('the database went away');
  }, 10);
  const one = group.add(1);
  const [two, three] = [group.add(2), group.add(3)];
  await one;
  await t.throwsAsync(two, { message: 'the database went away' });
  await t.throwsAsync(three, { message: 'the database went away' });
  await group.add(4);
  t.is(calls, 3);
});
