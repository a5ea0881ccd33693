import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { QuietTrigger } from '../../src/temporal/quiet-trigger.ts';

test('a burst of pokes fires once, after it goes quiet', async (t) => {
  let fired = 0;
  const trigger = new QuietTrigger(async () => void fired++, 100, 10_000);
  for (let i = 0; i < 1_000; i++) trigger.poke();
  t.is(fired, 0, 'not while the burst goes on');
  await sleep(400);
  t.is(fired, 1);
});

test('a steady stream of pokes still fires, at the latest the longest wait after the first', async (t) => {
  let fired = 0;
  const trigger = new QuietTrigger(async () => void fired++, 200, 100);
  const until = Date.now() + 600;
  while (Date.now() < until) {
    trigger.poke();
    await sleep(20);
  }
  t.true(fired >= 2, `fired ${fired} times while pokes kept coming every 20 ms`);
  await trigger.flush();
});

test('flush fires what is pending at once, and nothing when nothing is', async (t) => {
  let fired = 0;
  const trigger = new QuietTrigger(async () => void fired++, 60_000, 60_000);
  await trigger.flush();
  t.is(fired, 0);
  trigger.poke();
  await trigger.flush();
  t.is(fired, 1);
  await sleep(50);
  t.is(fired, 1, 'the timer it replaced does not fire again');
});
